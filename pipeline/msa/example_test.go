package msa_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/contactmap/contactmap/pipeline/msa"
)

func ExampleReadFile() {
	a, err := msa.ReadFile("testdata/1CTF_A.a3m.gz") // format and compression by content
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Format, a.N(), a.L(), a.Query()[:10])
	_, err = msa.Parse([]byte(">q\nACDE\n>s\nACD\n"), "bad.fasta", msa.Unknown)
	fmt.Println(errors.Is(err, msa.ErrRagged), strings.TrimPrefix(err.Error(), "msa: "))
	// Output:
	// A3M 10 68 EFDVILKAAG
	// true bad.fasta line 3 (sequence 2): ragged row: not as long as the query: 3 columns, the query 4
}
