package dedup

import (
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
)

// TestKeepChoose: the kept member of each cluster under each rule, and
// in a batch run the stored members first, those the stored dedup left
// whole before those it cut from.
func TestKeepChoose(t *testing.T) {
	t.Parallel()
	mem := func(d string, start, end int) cluster.Member {
		return cluster.Member{Doc: d, CharStart: start, CharEnd: end}
	}
	cs := []cluster.Cluster{
		{ID: "c0", Members: []cluster.Member{mem("a", 0, 10), mem("b", 5, 15), mem("c", 0, 10)}},
		{ID: "c1", Members: []cluster.Member{mem("c", 20, 30), mem("d", 0, 10)}},
	}
	lengths := map[string]int{"a": 100, "b": 300, "c": 300, "d": 50}
	dates := map[string]string{"b": "2024-05-01", "c": "2023-01-01"}
	tests := []struct {
		name        string
		keep        Keep
		want        []int
		wantUndated int
	}{
		{"first", Keep{Rule: KeepFirst}, []int{0, 0}, 0},
		{"longest, ties to the first", Keep{Rule: KeepLongest}, []int{1, 0}, 0},
		{"earliest, undated last", Keep{Rule: KeepEarliest}, []int{2, 0}, 2},
		{"batch: a stored member first", Keep{Rule: KeepFirst, Batch: map[string]bool{"a": true, "c": true}}, []int{1, 1}, 0},
		{"batch: stored and left whole before stored and cut", Keep{Rule: KeepFirst, Batch: map[string]bool{"a": true},
			Withdrawn: map[string][]Range{"b": {{Start: 12, End: 14}}}}, []int{2, 0}, 0},
		{"batch: the rule among the stored ones", Keep{Rule: KeepLongest, Batch: map[string]bool{"d": true}}, []int{1, 0}, 0},
		{"batch: all of the batch", Keep{Rule: KeepEarliest, Batch: map[string]bool{"a": true, "b": true, "c": true, "d": true}}, []int{2, 0}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, undated := tc.keep.Choose(cs, lengths, dates)
			if !slices.Equal(got, tc.want) || undated != tc.wantUndated {
				t.Errorf("Choose = %v, %d undated; want %v, %d", got, undated, tc.want, tc.wantUndated)
			}
		})
	}
}
