//go:build !unix

package main

import "os"

// maxRSS is 0 (unknown) where there is no rusage.
func maxRSS(*os.ProcessState) int64 { return 0 }
