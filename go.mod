module github.com/contactmap/contactmap

go 1.26.8

require (
	github.com/klauspost/compress v1.20.3
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/term v0.47.0
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20230729102104-8b8060e7531f
)

require golang.org/x/image v0.47.0

require golang.org/x/tools v0.30.0 // indirect

require (
	github.com/biogo/biogo v1.0.4
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.49.0
)
