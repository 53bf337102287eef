package bench

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a run happened.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go_version"`
}

// DescribeMachine reads the CPU model from /proc/cpuinfo where there is one
// ("unknown" elsewhere) and the rest from the runtime.
func DescribeMachine() Machine {
	return Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuModel(), Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
}

func (m Machine) String() string {
	return m.GOOS + "/" + m.GOARCH + ", " + m.CPU + ", " + strconv.Itoa(m.Cores) + " cores, " + m.GoVersion
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name", "Model", "cpu model", "Processor":
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return "unknown"
}
