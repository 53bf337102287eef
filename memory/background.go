package memory

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/memory/embed"
)

// Background. Recall by sentence vectors counts a record's cosine with
// the query by how far it stands above what is usual for that query
// (addSentences): a sentence encoder puts any two sentences at some
// cosine, and only the part above it says the record is about the
// query. What is usual was the mean over the user's own records, which a
// small store cannot give: with one record the mean is that record's
// own cosine, so nothing stands above it and a paraphrase of the only
// thing the user said was never found. The background is a fixed set of
// sentences about nothing in particular (background.txt), embedded by
// the query's own encoder; their cosines count among the user's as
// records that are always there. A user with hundreds of records is
// judged much as before; a user with one is judged against the
// background, whatever the store's size. Each encoder gets its own
// background (Query.Background), so no cosine level of one model is
// written into the code.

//go:embed background.txt
var backgroundFile string

// BackgroundTexts returns the background sentences, in file order.
func BackgroundTexts() []string {
	var out []string
	for _, l := range strings.Split(backgroundFile, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Background embeds the background sentences (BackgroundTexts) with
// emb: the vectors a Query by emb's model carries as its Background. The
// error is emb's, wrapped.
func Background(ctx context.Context, emb embed.Embedder) ([][]float32, error) {
	vs, err := emb.Embed(ctx, BackgroundTexts())
	if err != nil {
		return nil, fmt.Errorf("memory: embedding the background: %w", err)
	}
	return vs, nil
}
