package htmltext

import (
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

const (
	zhHans = "部分重复检测系统把每个网页拆分成句子。" +
		"然后计算每个句子的签名，并在不同文档之间寻找共享的签名序列！" +
		"这种方法能够发现被转载、改写或拼接的段落。"
	zhHant = "部分重複檢測系統把每個網頁拆分成句子。然後計算每個句子的簽名，並尋找共享的序列。"
	jaText = "文書の一部が重複しているかどうかを調べます。「引用」も検出できます。"
	koText = "부분 중복 문서를 찾습니다. 문장마다 서명을 계산합니다."
	frText = "Déjà vu : l’été à Noël, où ça coûte 5 € — naïve façade."
)

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

func TestCharsets(t *testing.T) {
	page := func(head, text string) string {
		return "<!DOCTYPE html><html><head>" + head + "<title>t</title></head><body><p>" + text + "</p></body></html>"
	}
	tests := []struct {
		name        string
		enc         encoding.Encoding
		head        string // markup in <head>, before encoding
		contentType string
		text        string
		charset     string
	}{
		{"gbk http-equiv", simplifiedchinese.GBK, `<meta http-equiv="Content-Type" content="text/html; charset=gbk">`, "", zhHans, "gbk"},
		{"gb2312 meta charset", simplifiedchinese.GBK, `<meta charset="GB2312">`, "", zhHans, "gbk"},
		{"gbk content type", simplifiedchinese.GBK, "", "text/html; charset=GBK", zhHans, "gbk"},
		{"gb18030", simplifiedchinese.GB18030, `<meta charset=gb18030>`, "", zhHans, "gb18030"},
		{"big5 http-equiv", traditionalchinese.Big5, `<META HTTP-EQUIV="content-type" CONTENT="text/html;charset=big5">`, "", zhHant, "big5"},
		{"shift_jis", japanese.ShiftJIS, `<meta charset="Shift_JIS">`, "", jaText, "shift_jis"},
		{"euc-jp", japanese.EUCJP, `<meta charset="euc-jp">`, "", jaText, "euc-jp"},
		{"euc-kr", korean.EUCKR, `<meta http-equiv=Content-Type content="text/html; charset=euc-kr">`, "", koText, "euc-kr"},
		{"windows-1252", charmap.Windows1252, `<meta charset="windows-1252">`, "", frText, "windows-1252"},
		{"iso-8859-1 header", charmap.Windows1252, "", `text/html; charset="ISO-8859-1"`, frText, "windows-1252"},
		{"content type beats meta", simplifiedchinese.GBK, `<meta charset=big5>`, "text/html;charset=gbk", zhHans, "gbk"},
		{"undeclared latin1 guess", charmap.Windows1252, "", "", frText, "windows-1252"},
		{"undeclared utf-8", encoding.Nop, "", "", zhHans, "utf-8"},
		{"declared latin1 but utf-8", encoding.Nop, `<meta charset=iso-8859-1>`, "", frText, "utf-8"},
		{"unknown label ignored", encoding.Nop, `<meta charset=x-nonsense>`, "text/html; charset=bogus", zhHans, "utf-8"},
		{"meta utf-16 means utf-8", encoding.Nop, `<meta charset=utf-16>`, "", zhHans, "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := encode(t, tt.enc, page(tt.head, tt.text))
			res, err := Extract(body, tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.text || res.Charset != tt.charset || res.InvalidUTF8 != 0 {
				t.Errorf("got %q, %q, %d invalid\nwant %q, %q, 0 invalid", res.Text, res.Charset, res.InvalidUTF8, tt.text, tt.charset)
			}
		})
	}
}

func TestBOM(t *testing.T) {
	html := "<p>" + zhHans + "</p>"
	tests := []struct {
		name    string
		body    []byte
		charset string
	}{
		{"utf-8", append([]byte{0xef, 0xbb, 0xbf}, html...), "utf-8"},
		{"utf-16le", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), html), "utf-16le"},
		{"utf-16be", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), html), "utf-16be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The BOM wins over the Content-Type.
			res, err := Extract(tt.body, "text/html; charset=gbk")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != zhHans || res.Charset != tt.charset {
				t.Errorf("got %q, %q; want %q, %q", res.Text, res.Charset, zhHans, tt.charset)
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string
		invalid int
	}{
		{"lone bytes", "<meta charset=utf-8><p>a\xffb\xfec</p>", "a\uFFFDb\uFFFDc", 2},
		{"truncated sequence", "<meta charset=utf-8><p>中\xe6\x96</p>", "中\uFFFD\uFFFD", 2},
		{"surrogate", "<meta charset=utf-8><p>\xed\xa0\x80x</p>", "\uFFFD\uFFFD\uFFFDx", 3},
		{"valid replacement char not counted", "<meta charset=utf-8><p>\uFFFD</p>", "\uFFFD", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Extract([]byte(tt.body), "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.want || res.InvalidUTF8 != tt.invalid || res.Charset != "utf-8" {
				t.Errorf("got %q, %d invalid, %q; want %q, %d", res.Text, res.InvalidUTF8, res.Charset, tt.want, tt.invalid)
			}
		})
	}
}

func TestInvalidGBK(t *testing.T) {
	body := append([]byte("<meta charset=gbk><p>"), encode(t, simplifiedchinese.GBK, "中文")...)
	body = append(body, 0x81, '<', '/', 'p', '>') // 0x81 starts a GBK pair; '<' cannot end it
	res, err := Extract(body, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "中文\uFFFD" || res.InvalidUTF8 != 1 {
		t.Errorf("got %q, %d invalid; want %q, 1", res.Text, res.InvalidUTF8, "中文\uFFFD")
	}
}

func TestCharsetParam(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"text/html", ""},
		{"text/html; charset=utf-8", "utf-8"},
		{"text/html;charset=\"GBK\"", "GBK"},
		{"text/html; Charset = 'big5' ; x=y", "big5"},
		{"text/html; charset=gbk; foo", "gbk"},
		{"text/html; charset", ""},
		{"text/html; charsetx; charset=euc-kr", "euc-kr"},
		{"charset=\"unterminated", "unterminated"},
	}
	for _, tt := range tests {
		if got := charsetParam(tt.in); got != tt.want {
			t.Errorf("charsetParam(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
