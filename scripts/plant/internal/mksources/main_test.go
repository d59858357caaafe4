package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const page = `<html><head><title>标题</title></head><body>
<div id="banner"><a>Download the ebook</a></div>
<ul class="docnav top"><li><strong>上一页</strong></li></ul>
<div class="section"><h2 class="title">1.1. 第一节</h2>
<div class="para">
	这是第一段，
	包含 <code class="command">apt-get</code> 命令。<a class="indexterm" id="x">索引</a>
</div>
<div class="para">This paragraph was not translated at all.</div>
<pre class="screen">$ 代码 不要</pre>
<h3>1.1.1. 小节</h3><p>第二段的内容。</p>
</div>
<h2>1.2. 第二节</h2><ul><li>列表项一。</li><li>列表项二。</li></ul>
<ul class="docnav"><li>下一页</li></ul>
</body></html>`

func TestExtract(t *testing.T) {
	tests := []struct {
		name  string
		split int
		han   float64
		want  []string
	}{
		{"whole page", 0, 0, []string{
			"1.1. 第一节\n\n这是第一段，包含 apt-get 命令。\n\nThis paragraph was not translated at all.\n\n1.1.1. 小节\n\n第二段的内容。\n\n1.2. 第二节\n\n列表项一。\n\n列表项二。",
		}},
		{"han filter, split at h2", 2, 0.3, []string{
			"1.1. 第一节\n\n这是第一段，包含 apt-get 命令。\n\n1.1.1. 小节\n\n第二段的内容。",
			"1.2. 第二节\n\n列表项一。\n\n列表项二。",
		}},
		{"split at h3", 3, 0.3, []string{
			"1.1. 第一节\n\n这是第一段，包含 apt-get 命令。",
			"1.1.1. 小节\n\n第二段的内容。",
			"1.2. 第二节\n\n列表项一。\n\n列表项二。",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extract([]byte(page), tt.split, tt.han)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("extract:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("A sentence of text. ", 20)
	files := map[string]string{"1790_a.txt": long + "\n", "1791_b.txt": "Too short.", "p.zh-cn.html": page}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	args := []string{"-prefix", "sotu/", filepath.Join(dir, "1790_a.txt"), filepath.Join(dir, "1791_b.txt")}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"sotu/1790_a","text":"` + strings.TrimSpace(long) + `","lang":"en"}` + "\n"
	if out.String() != want {
		t.Errorf("txt output:\n got %s\nwant %s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "2 files, 1 documents, 1 too short") {
		t.Errorf("counts: %s", errOut.String())
	}
	out.Reset()
	args = []string{"-format", "html", "-lang", "zh", "-prefix", "zh/", "-split", "2", "-min", "1", filepath.Join(dir, "p.zh-cn.html")}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), `{"id":"zh/p#00","text":"1.1. 第一节`) || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("html output:\n%s", out.String())
	}
	if err := run([]string{"-format", "pdf"}, &out, &errOut); err == nil {
		t.Error("unknown format accepted")
	}
}
