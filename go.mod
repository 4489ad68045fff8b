module github.com/contactmap/contactmap

go 1.26.8

require (
	github.com/klauspost/compress v1.20.3
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20230729102104-8b8060e7531f
)

require github.com/biogo/biogo v1.0.4 // indirect
