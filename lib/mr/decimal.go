package mr

import "bytes"

// ParseDecimal parses a non-negative decimal such as 0.9123, as the join
// writes scores, without strconv's generality. The result is what
// strconv.ParseFloat gives: digits/10^k with both exact in a float64 is
// correctly rounded, like ParseFloat. At most 9 digits.
func ParseDecimal(b []byte) (float64, bool) {
	ip, fp, dot := bytes.Cut(b, []byte{'.'})
	if len(ip)+len(fp) > 9 || dot && len(fp) == 0 {
		return 0, false
	}
	i, ok := Atoi(ip)
	if !ok {
		return 0, false
	}
	f, scale := 0, 1
	if dot {
		if f, ok = Atoi(fp); !ok {
			return 0, false
		}
		for range fp {
			scale *= 10
		}
	}
	return float64(i*scale+f) / float64(scale), true
}
