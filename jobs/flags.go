package jobs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// listFlag is a repeatable flag; values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// sizeFlag is a flag of a size in bytes: a number with an optional suffix
// K, M, G or T (powers of 1024; KB, KiB, MB, MiB ... mean the same), e.g.
// 512M.
type sizeFlag struct{ n *int64 }

func (b sizeFlag) String() string {
	if b.n == nil {
		return "0"
	}
	return strconv.FormatInt(*b.n, 10)
}

func (b sizeFlag) Set(v string) error {
	n, err := parseByteSize(v)
	if err != nil {
		return err
	}
	*b.n = n
	return nil
}

// parseByteSize parses a sizeFlag value.
func parseByteSize(v string) (int64, error) {
	s := strings.ToUpper(strings.TrimSpace(v))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "IB"), "B")
	shift := 0
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift > 0 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("want a size in bytes such as 4096, 64K, 512M or 2G, got %q", v)
	}
	return n << shift, nil
}

// intSizeFlag adapts a sizeFlag to an int.
type intSizeFlag struct{ n *int }

func (b intSizeFlag) String() string {
	if b.n == nil {
		return "0"
	}
	return strconv.Itoa(*b.n)
}

func (b intSizeFlag) Set(v string) error {
	n, err := parseByteSize(v)
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("%q is too large", v)
	}
	*b.n = int(n)
	return nil
}
