package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Keys that operators manage. A key's Policy says which models
// it may ask for, until when it is valid, how many requests and tokens a
// minute it may use, and its budgets of tokens and USD per day and per
// month (UTC). A request the policy refuses gets its provider's error
// shape and status, and nothing is sent upstream:
//
//   - an expired key: 401 (OpenAI invalid_api_key, Anthropic
//     authentication_error), as an unknown one;
//   - a model not in its list: 403 (OpenAI code model_not_allowed,
//     Anthropic permission_error);
//   - a budget spent: 429 (OpenAI type and code insufficient_quota,
//     Anthropic rate_limit_error) with Retry-After until the window ends
//     and x-should-retry: false (the SDKs then do not retry it);
//   - over rpm or tpm: 429 (OpenAI type requests or tokens, code
//     rate_limit_exceeded; Anthropic rate_limit_error) with Retry-After
//     and the provider's rate limit headers.
//
// Usage is what the upstreams report in their answers (Usage.read); cost
// is usage by the File's prices (USD per million tokens). A request is
// admitted while the key's budget is not spent and its token bucket not
// empty, and its usage is counted as the answer reports it, so the
// request that crosses a budget is served and the next is refused. A
// Chat stream reports usage only when asked
// (stream_options.include_usage): for a key with a token or cost limit
// the gateway asks, so no stream escapes the count (the client then gets
// the usage chunk, choices empty, that asking gives). The counts are this
// process's: a restart begins the current windows anew, and several
// gateway processes each count their own.

// Policy is what a key may do; zero values are no limit.
type Policy struct {
	// Name names the key in metrics and logs (default the first 8 digits
	// of its hash).
	Name string `yaml:"name"`
	// Models are the models it may ask for, as the client names them (with
	// or without an "upstream-name/" prefix; a name ending in '*' is a
	// prefix); none: every model.
	Models []string `yaml:"models"`
	// Expires is when the key stops being accepted.
	Expires time.Time `yaml:"expires"`
	// RPM and TPM bound its requests and tokens a minute (token buckets
	// that refill continuously).
	RPM int64 `yaml:"rpm"`
	TPM int64 `yaml:"tpm"`
	// Budget bounds what it uses a day and a month.
	Budget Budget `yaml:"budget"`
}

// Budget is a key's budgets per UTC day and month; zero is no limit.
type Budget struct {
	TokensPerDay   int64   `yaml:"tokens_per_day"`
	TokensPerMonth int64   `yaml:"tokens_per_month"`
	USDPerDay      float64 `yaml:"usd_per_day"`
	USDPerMonth    float64 `yaml:"usd_per_month"`
}

// Price is the cost of a model's tokens in USD per million. CachedInput
// is the price of input read from the provider's cache (default Input).
type Price struct {
	Input       float64 `yaml:"input"`
	Output      float64 `yaml:"output"`
	CachedInput float64 `yaml:"cached_input"`
}

// cost is the USD cost of u at p.
func (p Price) cost(u Usage) float64 {
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	return (float64(u.Input-u.CachedInput)*p.Input + float64(u.CachedInput)*cached + float64(u.Output)*p.Output) / 1e6
}

// priceOf is the price of model: its own entry, else the longest prefix
// entry ("gpt-4o*") that matches; ok is false when none does.
func priceOf(prices map[string]Price, model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	best, bestLen, found := Price{}, -1, false
	for k, p := range prices {
		if pre, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(model, pre) && len(pre) > bestLen {
			best, bestLen, found = p, len(pre), true
		}
	}
	return best, found
}

// validateKeys returns ErrConfig for keys or prices the gateway cannot use.
func validateKeys(keys []Key, prices map[string]Price) error {
	seen := map[string]bool{}
	for i, k := range keys {
		if seen[k.SHA256] {
			return fmt.Errorf("%w: key %d: the same key_sha256 twice", ErrConfig, i)
		}
		seen[k.SHA256] = true
		p := k.Policy
		b := p.Budget
		if p.RPM < 0 || p.TPM < 0 || b.TokensPerDay < 0 || b.TokensPerMonth < 0 || b.USDPerDay < 0 || b.USDPerMonth < 0 {
			return fmt.Errorf("%w: key %d: rates and budgets may not be negative", ErrConfig, i)
		}
		for _, m := range p.Models {
			if m == "" || strings.Contains(strings.TrimSuffix(m, "*"), "*") {
				return fmt.Errorf("%w: key %d: model %q (a name, or a prefix ending in '*')", ErrConfig, i, m)
			}
		}
	}
	for m, p := range prices {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 || math.IsNaN(p.Input+p.Output+p.CachedInput) {
			return fmt.Errorf("%w: price of %q: not a price", ErrConfig, m)
		}
	}
	return nil
}

// keyName is a key's name in metrics and logs.
func (k *Key) keyName() string {
	if k.Name != "" {
		return k.Name
	}
	if len(k.SHA256) >= 8 {
		return k.SHA256[:8]
	}
	return k.SHA256
}

// allows reports whether k may ask for model.
func (k *Key) allows(model string) bool {
	if len(k.Models) == 0 {
		return true
	}
	names := []string{model}
	if _, rest, ok := strings.Cut(model, "/"); ok {
		names = append(names, rest)
	}
	for _, m := range k.Models {
		for _, n := range names {
			if m == n || strings.HasSuffix(m, "*") && strings.HasPrefix(n, strings.TrimSuffix(m, "*")) {
				return true
			}
		}
	}
	return false
}

// keySet is the keys and prices in force; replaced whole by Reload.
type keySet struct {
	byHash map[string]*Key
	prices map[string]Price
}

func newKeySet(f *File) *keySet {
	ks := &keySet{byHash: make(map[string]*Key, len(f.Keys)), prices: f.Prices}
	for i := range f.Keys {
		k := f.Keys[i]
		ks.byHash[k.SHA256] = &k
	}
	return ks
}

// key returns the key of hash in force, nil when there is none.
func (g *Gateway) key(hash string) *Key { return g.keyset.Load().byHash[hash] }

// spend is what one key used and may use: its budget windows and rate
// buckets. It outlives a reload (the key's hash names it).
type spend struct {
	mu                     sync.Mutex
	day, month             string // the windows counted, "2006-01-02" and "2006-01" (UTC)
	dayTokens, monthTokens int64
	dayUSD, monthUSD       float64
	reqLevel, tokLevel     float64   // the rpm and tpm buckets
	reqAt, tokAt           time.Time // when each was last refilled
	reqInited, tokInited   bool
}

// spendOf returns the spend of the key hash.
func (g *Gateway) spendOf(hash string) *spend {
	g.spendMu.Lock()
	defer g.spendMu.Unlock()
	s := g.spends[hash]
	if s == nil {
		s = &spend{}
		g.spends[hash] = s
	}
	return s
}

// windowLocked moves s to the windows of now.
func (s *spend) windowLocked(now time.Time) {
	now = now.UTC()
	if d := now.Format("2006-01-02"); d != s.day {
		s.day, s.dayTokens, s.dayUSD = d, 0, 0
	}
	if m := now.Format("2006-01"); m != s.month {
		s.month, s.monthTokens, s.monthUSD = m, 0, 0
	}
}

// refill brings a bucket of limit a minute to now; a new one is full.
func refill(level *float64, at *time.Time, inited *bool, limit int64, now time.Time) {
	if !*inited {
		*level, *at, *inited = float64(limit), now, true
		return
	}
	*level = min(float64(limit), *level+now.Sub(*at).Seconds()*float64(limit)/60)
	*at = now
}

// countsTokens reports whether the key of hash has a limit that counts
// tokens or cost (a budget, tpm).
func (g *Gateway) countsTokens(hash string) bool {
	k := g.key(hash)
	if hash == "" || k == nil {
		return false
	}
	b := k.Budget
	return k.TPM > 0 || b.TokensPerDay > 0 || b.TokensPerMonth > 0 || b.USDPerDay > 0 || b.USDPerMonth > 0
}

// refusal is why a key's request is refused, and the answer it gets.
type refusal struct {
	reason     string // the metric's: expired, model_not_allowed, budget_tokens, budget_usd, rpm, tpm
	err        error
	status     int
	typ, code  string // OpenAI's error type and code
	retryAfter time.Duration
	noRetry    bool // x-should-retry: false
	header     http.Header
	message    string
}

// police admits a request of key k for model, counting it against the
// key's request rate; it returns the refusal when the key's policy does
// not let it go upstream.
func (g *Gateway) police(k *Key, model string) *refusal {
	now := g.cfg.Now()
	if !k.Expires.IsZero() && !now.Before(k.Expires) {
		return &refusal{reason: "expired", err: ErrKeyExpired, status: http.StatusUnauthorized, typ: "invalid_request_error", code: "invalid_api_key",
			message: fmt.Sprintf("This API key expired at %s (Toolstream gateway).", k.Expires.UTC().Format(time.RFC3339))}
	}
	if !k.allows(model) {
		return &refusal{reason: "model_not_allowed", err: ErrModelNotAllowed, status: http.StatusForbidden, typ: "invalid_request_error", code: "model_not_allowed",
			message: fmt.Sprintf("This API key may not use model %s (Toolstream gateway).", strconv.Quote(model))}
	}
	s := g.spendOf(k.SHA256)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.windowLocked(now)
	b := k.Budget
	utc := now.UTC()
	tomorrow := time.Date(utc.Year(), utc.Month(), utc.Day()+1, 0, 0, 0, 0, time.UTC).Sub(utc)
	nextMonth := time.Date(utc.Year(), utc.Month()+1, 1, 0, 0, 0, 0, time.UTC).Sub(utc)
	budget := func(reason, what string, until time.Duration) *refusal {
		return &refusal{reason: reason, err: ErrBudgetExceeded, status: http.StatusTooManyRequests, typ: "insufficient_quota", code: "insufficient_quota",
			retryAfter: until, noRetry: true,
			message: fmt.Sprintf("This API key's budget of %s is spent (Toolstream gateway); it renews in %s.", what, until.Round(time.Second))}
	}
	switch {
	case b.TokensPerMonth > 0 && s.monthTokens >= b.TokensPerMonth:
		return budget("budget_tokens", fmt.Sprintf("%d tokens a month", b.TokensPerMonth), nextMonth)
	case b.USDPerMonth > 0 && s.monthUSD >= b.USDPerMonth:
		return budget("budget_usd", fmt.Sprintf("%g USD a month", b.USDPerMonth), nextMonth)
	case b.TokensPerDay > 0 && s.dayTokens >= b.TokensPerDay:
		return budget("budget_tokens", fmt.Sprintf("%d tokens a day", b.TokensPerDay), tomorrow)
	case b.USDPerDay > 0 && s.dayUSD >= b.USDPerDay:
		return budget("budget_usd", fmt.Sprintf("%g USD a day", b.USDPerDay), tomorrow)
	}
	if k.TPM > 0 {
		refill(&s.tokLevel, &s.tokAt, &s.tokInited, k.TPM, now)
		if s.tokLevel <= 0 {
			wait := time.Duration((1 - s.tokLevel) / float64(k.TPM) * 60 * float64(time.Second))
			return g.rateRefusal("tpm", "tokens", k.TPM, s.tokLevel, wait, model)
		}
	}
	if k.RPM > 0 {
		refill(&s.reqLevel, &s.reqAt, &s.reqInited, k.RPM, now)
		if s.reqLevel < 1 {
			wait := time.Duration((1 - s.reqLevel) / float64(k.RPM) * 60 * float64(time.Second))
			return g.rateRefusal("rpm", "requests", k.RPM, s.reqLevel, wait, model)
		}
		s.reqLevel--
	}
	return nil
}

// rateRefusal is the refusal of a request over a key's rpm or tpm, with
// the provider's rate limit headers.
func (g *Gateway) rateRefusal(reason, unit string, limit int64, level float64, wait time.Duration, model string) *refusal {
	wait = max(wait, time.Millisecond)
	h := http.Header{}
	reset := g.cfg.Now().Add(wait).UTC().Format(time.RFC3339)
	h.Set("X-Ratelimit-Limit-"+unit, strconv.FormatInt(limit, 10))
	h.Set("X-Ratelimit-Remaining-"+unit, strconv.FormatInt(max(int64(level), 0), 10))
	h.Set("X-Ratelimit-Reset-"+unit, wait.Round(time.Millisecond).String())
	h.Set("Anthropic-Ratelimit-"+unit+"-Limit", strconv.FormatInt(limit, 10))
	h.Set("Anthropic-Ratelimit-"+unit+"-Remaining", strconv.FormatInt(max(int64(level), 0), 10))
	h.Set("Anthropic-Ratelimit-"+unit+"-Reset", reset)
	return &refusal{reason: reason, err: ErrRateLimited, status: http.StatusTooManyRequests, typ: unit, code: "rate_limit_exceeded",
		retryAfter: wait, header: h,
		message: fmt.Sprintf("Rate limit reached for %s on %s per min (%s): Limit %d (Toolstream gateway). Please try again in %s.",
			model, unit, strings.ToUpper(reason), limit, wait.Round(time.Millisecond))}
}

// refuse writes r in api's provider shape and counts it.
func (g *Gateway) refuse(w http.ResponseWriter, api API, k *Key, r *refusal) {
	keyRefused.WithLabelValues(k.Tenant, k.keyName(), r.reason).Inc()
	g.log.Warn("gateway request refused by its key's policy", "tenant", k.Tenant, "key", k.keyName(), "reason", r.reason)
	for name, vs := range r.header {
		w.Header()[name] = vs
	}
	if r.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(r.retryAfter.Seconds())), 10))
	}
	if r.noRetry {
		w.Header().Set("X-Should-Retry", "false")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	w.Write(policyErrorBody(api, r))
}

// policyErrorBody is a refusal in api's provider shape: OpenAI's with the
// refusal's type and code, Anthropic's with the type of its status.
func policyErrorBody(api API, r *refusal) []byte {
	var v any
	if api.Kind() == KindAnthropic {
		typ, _ := errorType(api, r.status)
		v = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": r.message}}
	} else {
		v = map[string]any{"error": map[string]any{"message": r.message, "type": r.typ, "param": nil, "code": r.code}}
	}
	b, _ := json.Marshal(v) // maps of strings: cannot fail
	return b
}

// account counts usage of a call for its key: the key's budgets, token
// rate and metrics. An answer's usage may come in parts (a stream's
// running totals): each is counted as it comes.
func (g *Gateway) account(c Call, model string, u Usage) {
	if c.Key == "" {
		return
	}
	k := g.key(c.Key)
	if k == nil {
		return // removed by a reload while the request was under way
	}
	ks := g.keyset.Load()
	cost := 0.0
	if p, ok := priceOf(ks.prices, model); ok {
		cost = p.cost(u)
	}
	name := k.keyName()
	model = g.modelLabel(model)
	keyTokens.WithLabelValues(k.Tenant, name, k.User, model, "input").Add(float64(u.Input))
	keyTokens.WithLabelValues(k.Tenant, name, k.User, model, "output").Add(float64(u.Output))
	keyCost.WithLabelValues(k.Tenant, name, k.User, model).Add(cost)
	s := g.spendOf(c.Key)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := g.cfg.Now()
	s.windowLocked(now)
	s.dayTokens += u.Total()
	s.monthTokens += u.Total()
	s.dayUSD += cost
	s.monthUSD += cost
	if k.TPM > 0 {
		refill(&s.tokLevel, &s.tokAt, &s.tokInited, k.TPM, now)
		s.tokLevel -= float64(u.Total())
	}
	keySpend.WithLabelValues(k.Tenant, name, "day", "tokens").Set(float64(s.dayTokens))
	keySpend.WithLabelValues(k.Tenant, name, "month", "tokens").Set(float64(s.monthTokens))
	keySpend.WithLabelValues(k.Tenant, name, "day", "usd").Set(s.dayUSD)
	keySpend.WithLabelValues(k.Tenant, name, "month", "usd").Set(s.monthUSD)
}

// counted counts a call of a key that went upstream.
func (g *Gateway) counted(c Call, model string) {
	if k := g.key(c.Key); c.Key != "" && k != nil {
		keyRequests.WithLabelValues(k.Tenant, k.keyName(), k.User, g.modelLabel(model)).Inc()
	}
}

// modelLabel is model as the metrics' model label: a model the prices
// or an upstream's models name, else "other" (a client may write any
// model, and a label must stay bounded).
func (g *Gateway) modelLabel(model string) string {
	if _, ok := priceOf(g.keyset.Load().prices, model); ok {
		return model
	}
	for i := range g.cfg.File.Upstreams {
		if slices.Contains(g.cfg.File.Upstreams[i].Models, model) {
			return model
		}
	}
	return "other"
}

// KeyUsage is what a key used in the current windows (UTC), as this
// process counted it.
type KeyUsage struct {
	Day, Month             string
	DayTokens, MonthTokens int64
	DayUSD, MonthUSD       float64
}

// Usage returns what the key of hash used in the current windows.
func (g *Gateway) Usage(hash string) KeyUsage {
	s := g.spendOf(hash)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.windowLocked(g.cfg.Now())
	return KeyUsage{Day: s.day, Month: s.month, DayTokens: s.dayTokens, MonthTokens: s.monthTokens, DayUSD: s.dayUSD, MonthUSD: s.monthUSD}
}
