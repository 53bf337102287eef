package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
	"go.yaml.in/yaml/v3"
)

// File is the gateway's configuration file (YAML):
//
//	upstreams:
//	  - name: openai
//	    kind: openai            # openai | anthropic
//	    base_url: https://api.openai.com/v1
//	    api_key: ${env:OPENAI_API_KEY}
//	    models: [gpt-4.1]        # optional: the models it serves (default every model), what GET /v1/models lists
//	    weight: 1                # optional: its share of a model's requests (pool.go)
//	    first_byte_timeout: 2m   # optional: until a stream's first event
//	    idle_timeout: 5m         # optional: between two events of a stream
//	    timeout: 10m             # optional: a whole answer that is not a stream
//	routing: {retries: 2}        # optional: retries, backoff, circuit breaking (Routing)
//	prices:                      # optional: USD per million tokens, by model (Price)
//	  gpt-4o: {input: 2.5, output: 10}
//	keys_file: PATH              # optional: more keys, in a file reloaded on change
//	keys:                        # the clients' keys, stored hashed
//	  - key_sha256: 9f86d0…
//	    tenant: acme
//	    user: ""                 # optional: else the Toolstream-User header
//	    name: ci                 # optional: the key's name in metrics and logs
//	    models: [gpt-4o-mini]    # optional: the models it may ask for (Policy)
//	    expires: 2027-01-01T00:00:00Z
//	    rpm: 60                  # optional: requests a minute
//	    tpm: 100000              # optional: tokens a minute
//	    budget: {tokens_per_day: 1000000, usd_per_month: 50}
//	    execute: false           # optional: run the registry's tools on passthrough calls
//	    memory: true             # optional: false: run mode neither recalls nor writes its users' memory
//	memory:                      # optional: run mode and the users' memory (MemoryConfig)
//	  off: false                 # true: no run recalls or writes memory
//	  recall_budget_tokens: 300  # what a round's recall adds to the model's context
//	heartbeat: 10s               # optional: SSE comment interval
//	limits:                      # optional: what clients may hold (0: the default)
//	  conns_max: 0               # connections open at once (serve's listener)
//	  requests_max: 4096         # requests under way, every key
//	  key_requests_max: 64       # requests under way, one key
//	  body_read_timeout: 30s     # reading a request's body
type File struct {
	Upstreams []Upstream    `yaml:"upstreams"`
	Keys      []Key         `yaml:"keys"`
	Heartbeat time.Duration `yaml:"heartbeat"`
	Limits    Limits        `yaml:"limits"`
	// Memory is run mode's use of the users' memory (agent.MemoryConfig).
	Memory MemoryConfig `yaml:"memory"`
	// Run is run mode's built-in tools (agent.Config): plans and
	// sub-agents, on by default.
	Run RunConfig `yaml:"run"`
	// Routing is how a request is retried and moved between upstreams.
	Routing Routing `yaml:"routing"`
	// Prices gives the cost of a model's tokens (budgets in USD).
	Prices map[string]Price `yaml:"prices"`
	// KeysFile names a YAML file of more keys (a list of Key, or
	// {keys: [...]}), relative to the config file; read with it and again
	// whenever it or the config changes (Gateway.Reload).
	KeysFile string `yaml:"keys_file"`

	// source is what LoadFile read: the config's bytes, a 0 and the keys
	// file's bytes (sourceOf). Watch compares the files with it first, so
	// a change made after the load is seen however late Watch starts.
	source []byte
}

// Limits bounds what the gateway's clients may hold; zero is the default
// of each.
type Limits struct {
	// ConnsMax bounds the connections open at once: serve's listener
	// closes the ones over it at once. Default (stack): a share of the
	// process's descriptor limit, so the log keeps descriptors of its own.
	ConnsMax int `yaml:"conns_max"`
	// RequestsMax bounds the requests under way (DefaultRequestsMax), and
	// KeyRequestsMax those of one key (DefaultKeyRequestsMax), counting
	// the upstream reads and runs that outlive their client until they end.
	// Over them a request gets 503 or 429 with Retry-After.
	RequestsMax    int `yaml:"requests_max"`
	KeyRequestsMax int `yaml:"key_requests_max"`
	// BodyReadTimeout bounds the reading of a request's body
	// (DefaultBodyReadTimeout); a slower one gets 408.
	BodyReadTimeout time.Duration `yaml:"body_read_timeout"`
}

// Upstream is a model provider requests are passed to.
type Upstream struct {
	Name    string `yaml:"name"`
	Kind    Kind   `yaml:"kind"`
	BaseURL string `yaml:"base_url"` // up to and including /v1
	APIKey  string `yaml:"api_key"`
	// Models are the models it serves, as clients name them (a name
	// ending in '*' is a prefix); none: every model of its kind. GET
	// /v1/models lists them (as "name/model", and bare on the first
	// upstream of its kind).
	Models []string `yaml:"models"`
	Pool   `yaml:",inline"`
}

// Kind is an upstream's protocol family.
type Kind string

const (
	KindOpenAI    Kind = "openai"    // Chat Completions and Responses
	KindAnthropic Kind = "anthropic" // Messages
)

// Key is one client key: its SHA-256 (hex), the tenant it acts for and,
// when set, the only user it acts for.
type Key struct {
	SHA256 string `yaml:"key_sha256"`
	Tenant string `yaml:"tenant"`
	User   string `yaml:"user"`
	// Policy is what the key may do: models, expiry, rates, budgets.
	Policy `yaml:",inline"`
	// Execute: the registry's tools run on the calls of this key's
	// passthrough answers, as for a producer (HeaderExecute "server" on
	// every request). By default a passthrough client runs its calls
	// itself: they are recorded and assembled, never run by Toolstream.
	Execute bool `yaml:"execute"`
	// Memory false: run mode neither recalls this key's users' memory nor
	// writes their messages to it (nil or true: as the gateway's Memory
	// says).
	Memory *bool `yaml:"memory"`
	// Plans and Delegate false: run mode offers this key's runs no
	// toolstream_plan (toolstream_delegate), and a call of it fails
	// unknown_tool (nil or true: as the gateway's run section says; a key
	// cannot turn on what the gateway turned off).
	Plans    *bool `yaml:"plans"`
	Delegate *bool `yaml:"delegate"`
}

// MemoryConfig is run mode's use of the users' memory: a run of a user
// writes the user's messages to the memory service and recalls the user's
// memory into each round's context (package agent, memory.go). On by
// default where the memory service runs.
type MemoryConfig struct {
	// Off: no run recalls or writes memory.
	Off bool `yaml:"off"`
	// RecallBudgetTokens bounds what a round's recall adds to the model's
	// context; 0: 300.
	RecallBudgetTokens int `yaml:"recall_budget_tokens"`
}

// RunConfig is run mode's built-in tools (docs/design.md, "Plans and
// delegation"), read when serve starts. Absent settings keep the defaults:
// both tools offered, 3 replans, one level of sub-agents.
type RunConfig struct {
	// Plans false: no round offers toolstream_plan and a model's call of
	// it fails unknown_tool, nothing written (nil or true: offered).
	Plans *bool `yaml:"plans"`
	// Delegate false: no round offers toolstream_delegate and a model's
	// call of it fails unknown_tool, no sub-agent started (nil or true:
	// offered to the runs above delegate_depth_max).
	Delegate *bool `yaml:"delegate"`
	// ReplansMax is how many replan triggers a run with a plan acts on
	// when its plan names no budget.replans; 0: 3. At most RunReplansMax.
	ReplansMax int `yaml:"replans_max"`
	// DelegateDepthMax is how many levels of sub-agents a client's run
	// may start (1: its children may not delegate); 0: 1. At most
	// RunDelegateDepthMax.
	DelegateDepthMax int `yaml:"delegate_depth_max"`
}

// The largest values RunConfig takes: more replans than this is a run
// that will not converge, deeper sub-agents split a budget of rounds into
// nothing.
const (
	RunReplansMax       = 20
	RunDelegateDepthMax = 4
)

// PlansOn and DelegateOn say whether the built-in tools are offered.
func (c RunConfig) PlansOn() bool    { return c.Plans == nil || *c.Plans }
func (c RunConfig) DelegateOn() bool { return c.Delegate == nil || *c.Delegate }

func (c RunConfig) validate() error {
	if c.ReplansMax < 0 || c.ReplansMax > RunReplansMax {
		return fmt.Errorf("%w: run: replans_max %d (want 0, the default 3, to %d)", ErrConfig, c.ReplansMax, RunReplansMax)
	}
	if c.DelegateDepthMax < 0 || c.DelegateDepthMax > RunDelegateDepthMax {
		return fmt.Errorf("%w: run: delegate_depth_max %d (want 0, the default 1, to %d)", ErrConfig, c.DelegateDepthMax, RunDelegateDepthMax)
	}
	return nil
}

// HashKey returns the hex SHA-256 of a client key, as key_sha256 holds it.
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

var envRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// ParseFile reads a configuration from YAML, replacing every ${env:NAME}
// in an upstream's base_url or api_key with the variable's value (lookup
// is os.LookupEnv when nil). It returns ErrConfig for a file it cannot
// use.
func ParseFile(data []byte, lookup func(string) (string, bool)) (*File, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var f File
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	expand := func(s string) (string, error) {
		var missing []string
		out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := envRef.FindStringSubmatch(ref)[1]
			v, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			return v
		})
		if len(missing) > 0 {
			return "", fmt.Errorf("%w: environment variable %s is not set", ErrConfig, strings.Join(missing, ", "))
		}
		return out, nil
	}
	for i := range f.Upstreams {
		u := &f.Upstreams[i]
		var err error
		if u.BaseURL, err = expand(u.BaseURL); err != nil {
			return nil, err
		}
		if u.APIKey, err = expand(u.APIKey); err != nil {
			return nil, err
		}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// LoadFile reads the configuration file at path (ParseFile) and its
// keys_file, if it names one. The File remembers what it was read from,
// for Gateway.Watch.
func LoadFile(path string) (*File, error) {
	f, _, err := loadFile(path)
	return f, err
}

// loadFile is LoadFile, and the bytes it parsed (its File's source): the
// config's, a 0, and the keys file's when the config parses and names one.
// The source is returned with an error too: what Watch compares.
func loadFile(path string) (*File, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []byte{0}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	source := append(data, 0)
	f, err := ParseFile(data, nil)
	if err != nil {
		return nil, source, err
	}
	if f.KeysFile != "" {
		keys, err := os.ReadFile(keysFileOf(path, f))
		if err != nil {
			return nil, source, fmt.Errorf("%w: keys_file: %v", ErrConfig, err)
		}
		source = append(source, keys...)
		if err := parseKeysFile(f, keysFileOf(path, f), keys); err != nil {
			return nil, source, err
		}
	}
	f.source = source
	return f, source, nil
}

// Validate returns ErrConfig for a configuration the gateway cannot use.
func (f *File) Validate() error {
	names := map[string]bool{}
	for i, u := range f.Upstreams {
		switch {
		case u.Name == "" || strings.Contains(u.Name, "/"):
			return fmt.Errorf("%w: upstream %d: a name without '/' is required", ErrConfig, i)
		case names[u.Name]:
			return fmt.Errorf("%w: two upstreams named %q", ErrConfig, u.Name)
		case u.Kind != KindOpenAI && u.Kind != KindAnthropic:
			return fmt.Errorf("%w: upstream %q: kind %q (want openai or anthropic)", ErrConfig, u.Name, u.Kind)
		case !strings.HasPrefix(u.BaseURL, "http://") && !strings.HasPrefix(u.BaseURL, "https://"):
			return fmt.Errorf("%w: upstream %q: base_url %q is not an http(s) URL", ErrConfig, u.Name, u.BaseURL)
		}
		names[u.Name] = true
	}
	for i, k := range f.Keys {
		if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != sha256.Size {
			return fmt.Errorf("%w: key %d: key_sha256 must be 64 hex digits", ErrConfig, i)
		}
		if err := events.ValidTenant(k.Tenant); err != nil || k.Tenant == events.SystemTenant {
			return fmt.Errorf("%w: key %d: tenant %q is not a tenant name", ErrConfig, i, k.Tenant)
		}
	}
	if err := f.validatePool(); err != nil {
		return err
	}
	if err := validateKeys(f.Keys, f.Prices); err != nil {
		return err
	}
	if l := f.Limits; l.ConnsMax < 0 || l.RequestsMax < 0 || l.KeyRequestsMax < 0 || l.BodyReadTimeout < 0 {
		return fmt.Errorf("%w: limits %+v: none may be negative", ErrConfig, l)
	}
	if f.Heartbeat < 0 {
		return fmt.Errorf("%w: heartbeat %v", ErrConfig, f.Heartbeat)
	}
	if err := f.Run.validate(); err != nil {
		return err
	}
	if f.Memory.RecallBudgetTokens < 0 {
		return fmt.Errorf("%w: memory: recall_budget_tokens %d (want 0, the default 300, or more)", ErrConfig, f.Memory.RecallBudgetTokens)
	}
	return nil
}
