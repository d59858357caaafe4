package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/span"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// The reused passage: four Chinese sentences (written for this test).
const zhPassage = "分布式文件系统把大文件切成固定大小的数据块，并在多台机器上保存副本。" +
	"当某台机器发生故障时，系统会从其他副本读取数据，用户几乎感觉不到中断。" +
	"名字节点只保存元数据，真正的数据由数据节点负责读写。" +
	"这样的设计让集群可以用普通硬件扩展到数千台机器！"

// TestChineseGBKAndUTF8: a GBK page (declared by http-equiv) and a UTF-8
// page sharing a passage give one span whose character offsets select the
// passage in both extracted texts.
func TestChineseGBKAndUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gbkHTML := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk"><title>新闻</title></head><body>` +
		`<div class="nav">首页 | 新闻 | 科技</div>` +
		`<p>今天的天气很好，我们去公园散步。公园里有很多人在锻炼身体。</p>` +
		`<p>` + zhPassage + `</p>` +
		`<p>最后，作者感谢所有参与测试的朋友。</p></body></html>`
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(gbkHTML)
	if err != nil {
		t.Fatal(err)
	}
	utf8HTML := `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>` +
		`<h1>技术博客</h1><p>本文转载自其他网站，内容如下。</p>` +
		`<blockquote>` + zhPassage + `</blockquote>` +
		`<p>欢迎在评论区留言讨论这个问题。你觉得呢？</p></body></html>`
	for name, data := range map[string]string{"a-gbk.html": gbk, "b-utf8.html": utf8HTML} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", dir, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	spans, _, _ := runPDC(t, "spans", out, "--format", "jsonl", "--text")
	lines := strings.Split(strings.TrimSpace(spans), "\n")
	if len(lines) != 1 {
		t.Fatalf("want 1 span, got %d:\n%s", len(lines), spans)
	}
	s, err := span.ParseJSON([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	if s.DocA != "a-gbk.html" || s.DocB != "b-utf8.html" || s.Length != 4 {
		t.Errorf("span %+v, want a-gbk.html ~ b-utf8.html, 4 sentences", s)
	}
	if *s.TextA != zhPassage || *s.TextB != zhPassage {
		t.Errorf("offsets select\n A %q\n B %q\nwant the passage", *s.TextA, *s.TextB)
	}
	// The offsets are code points into the text `pdc text` shows.
	text, _, _ := runPDC(t, "text", "--input", dir, "--id", "a-gbk.html")
	body := strings.SplitN(text, "\n", 2)[1]
	if got := string([]rune(body)[s.CharStartA:s.CharEndA]); got != zhPassage {
		t.Errorf("pdc text at [%d,%d) = %q", s.CharStartA, s.CharEndA, got)
	}
}
