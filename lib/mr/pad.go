package mr

import "strconv"

// AppendPadded appends n (>= 0) in decimal, zero-padded to width digits:
// numbers in keys and sorted fields compare as their bytes.
func AppendPadded(b []byte, n int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
