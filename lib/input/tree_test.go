package input

import "testing"

func TestTreeNames(t *testing.T) {
	name := TreeNames()
	for _, tc := range []struct{ root, want string }{
		{"/a/html", "html"},
		{"/b/html", "html-2"},
		{"/a/html/", "html"}, // the same root again
		{"/c/html-2", "html-2-2"},
		{"/", "tree"},
	} {
		if got := name(tc.root); got != tc.want {
			t.Errorf("name(%q) = %q, want %q", tc.root, got, tc.want)
		}
	}
}
