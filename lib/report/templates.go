package report

import "html/template"

// csp forbids every script (inline or not), plugins, frames, forms and
// remote content: the pages need only their style sheet.
const csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"csp":       func() string { return csp },
	"generator": func() string { return Generator },
	"docLink":   func(id, url string) docLinkData { return docLinkData{id, url} },
}).Parse(`
{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{csp}}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="{{generator}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="style.css">
<title>{{.}}</title></head><body>{{end}}

{{define "doclink"}}{{if .URL}}<a class="doc" href="{{.URL}}" rel="noopener noreferrer">{{.ID}}</a>{{else}}<span class="doc">{{.ID}}</span>{{end}}{{end}}

{{define "index"}}{{template "head" "pdc report"}}
<header><h1>pdc report</h1><p class="meta">{{.Out}} · generated {{.Generated}}</p></header>
<section id="summary"><h2>Run</h2>
<table class="kv">
<tr><th>documents read</th><td>{{.Read}}</td></tr>
<tr><th>documents parsed</th><td>{{.OK}}</td></tr>
<tr><th>documents skipped</th><td>{{.SkippedAll}}{{range .Skipped}} <span class="reason">{{.Name}} {{.Value}}</span>{{end}}</td></tr>
<tr><th>spans</th><td id="spans">{{.Spans}}</td></tr>
<tr><th>document pairs</th><td id="pairs">{{.DocPairs}}</td></tr>
<tr><th>sentences not matched</th><td>{{range .NotContent}}<span class="reason">{{.Name}} {{.Value}}</span> {{else}}none{{end}}</td></tr>
<tr><th>time</th><td>{{printf "%.2f" .Seconds}} s{{range .Jobs}} <span class="reason">{{.Name}} {{if lt .Seconds 0.0}}(earlier run){{else}}{{printf "%.2f" .Seconds}} s{{end}}</span>{{end}}</td></tr>
<tr><th>inputs</th><td>{{range .Inputs}}<code>{{.}}</code> {{end}}</td></tr>
{{if .Against}}<tr><th>batch against</th><td id="against">{{range .Against}}<code>{{.}}</code> {{end}}(this batch's spans: the pairs with a document of its inputs; the stored runs' documents count as read there)</td></tr>{{end}}
</table>
<details><summary>parameters</summary><table class="kv">{{range .Params}}<tr><th>{{.Name}}</th><td><code>{{.Value}}</code></td></tr>{{end}}</table></details>
</section>
<section id="histograms"><h2>Spans</h2><div class="hists">{{.LengthHist}}{{.ScoreHist}}</div></section>
<section id="top"><h2>Top document pairs by shared characters</h2>
<table class="list" id="top-pairs"><thead><tr><th>#</th><th>document A</th><th>document B</th><th>spans</th><th>shared chars A</th><th>shared chars B</th><th title="share of A's text in B, and of B's in A">contained A, B</th><th>first passage</th></tr></thead><tbody>
{{range .Top}}<tr class="pair"><td><a href="{{.Page}}">{{.N}}</a></td><td>{{template "doclink" (docLink .A .URLA)}}</td><td>{{template "doclink" (docLink .B .URLB)}}</td><td>{{.Spans}}</td><td>{{.SharedA}}</td><td>{{.SharedB}}</td><td>{{.ContainA}} {{.ContainB}}</td><td class="passage">{{.Passage}}</td></tr>
{{else}}<tr><td colspan="8">no spans</td></tr>{{end}}</tbody></table>
{{if .LeftOut}}<p class="more">{{.LeftOut}} more document pairs are not listed (pdc report --top-pairs, or pdc spans).</p>{{end}}
</section>
{{if .HasClusters}}<section id="clusters"><h2>Passage clusters, largest first</h2>
<table class="list" id="cluster-list"><thead><tr><th>#</th><th>documents</th><th>passages</th><th>earliest document</th><th>its passage</th></tr></thead><tbody>
{{range .Clusters}}<tr class="cluster"><td title="{{.ID}}">{{.N}}</td><td>{{.Size}}</td><td>{{.Members}}</td><td>{{template "doclink" (docLink .Earliest .URL)}}</td><td class="passage">{{.Passage}}</td></tr>
{{else}}<tr><td colspan="5">no clusters</td></tr>{{end}}</tbody></table>
{{if .ClustersLeftOut}}<p class="more">{{.ClustersLeftOut}} more clusters are not listed (pdc report --top-clusters, or pdc clusters).</p>{{end}}
</section>{{end}}
<section id="boilerplate"><h2>Boilerplate and templates left out</h2>
<table class="list"><thead><tr><th>documents</th><th>kind</th><th>example document</th><th>its text</th><th>first sentence: characters</th></tr></thead><tbody>
{{range .Boiler}}<tr><td>{{.DF}}</td><td>{{.Kind}}</td><td>{{.Doc}}</td><td class="passage">{{.Text}}</td><td>{{.Sentence}}{{if gt .Sentences 1}} ({{.Sentences}} sentences){{end}}: {{.CharStart}}–{{.CharEnd}}</td></tr>
{{else}}<tr><td colspan="5">none</td></tr>{{end}}</tbody></table>
{{if .BoilerLeftOut}}<p class="more">{{.BoilerLeftOut}} more in boilerplate.tsv.</p>{{end}}
</section>
<footer>Made by pdc from {{.Out}}; spans: pdc spans {{.Out}} --text.</footer>
</body></html>{{end}}

{{define "pair"}}{{template "head" (printf "pdc: %s ↔ %s" .A .B)}}
<header><p><a href="index.html">← report</a></p><h1>Pair {{.N}}: {{.A}} ↔ {{.B}}</h1>
<p class="meta">{{len .Spans}} spans · generated {{.Generated}} · = same words, ~ aligned, <mark>marked</mark>: not in the other sentence; the text between spans is folded</p></header>
<table class="list spans"><thead><tr><th>span</th><th>sentences A</th><th>sentences B</th><th>pairs</th><th>characters A</th><th>characters B</th><th>score</th></tr></thead><tbody>
{{range .Spans}}<tr><td><a href="#s{{.I}}">{{.I}}</a></td><td>{{.StartA}}</td><td>{{.StartB}}</td><td>{{.Length}}</td><td><a href="#a{{.I}}">{{.CharStartA}}–{{.CharEndA}}</a></td><td><a href="#b{{.I}}">{{.CharStartB}}–{{.CharEndB}}</a></td><td>{{.Score}}</td></tr>{{end}}
</tbody></table>
<table class="sbs"><colgroup><col class="side"><col class="mark"><col class="side"></colgroup>
<thead><tr><th id="side-a">A: {{template "doclink" (docLink .A .URLA)}}</th><th></th><th id="side-b">B: {{template "doclink" (docLink .B .URLB)}}</th></tr>
{{if or .MissingA .MissingB}}<tr><td class="more">{{if .MissingA}}The document's text was not found in the run's inputs.{{end}}</td><td></td><td class="more">{{if .MissingB}}The document's text was not found in the run's inputs.{{end}}</td></tr>{{end}}</thead>
<tbody>
{{range .Rows}}{{if eq .Kind "fold"}}<tr class="fold"><td>{{template "fold" .FoldA}}</td><td></td><td>{{template "fold" .FoldB}}</td></tr>
{{else if eq .Kind "start"}}<tr class="start" id="s{{.Num}}"><td id="a{{.Num}}"><a href="#b{{.Num}}">span {{.Num}}</a> · A {{.Span.CharStartA}}–{{.Span.CharEndA}}</td><td></td><td id="b{{.Num}}"><a href="#a{{.Num}}">span {{.Num}}</a> · B {{.Span.CharStartB}}–{{.Span.CharEndB}} · {{.Span.Length}} sentence pairs · score {{.Span.Score}}</td></tr>
{{else if eq .Kind "end"}}<tr class="end"><td colspan="3"></td></tr>
{{else}}<tr class="{{.Kind}}{{if eq .Kind "pair"}} s{{.Num}}{{end}}"><td>{{template "chunks" .A}}</td><td class="mark">{{.Mark}}</td><td>{{template "chunks" .B}}</td></tr>
{{end}}{{end}}</tbody></table>
</body></html>{{end}}

{{define "chunks"}}{{range .}}{{if .Marked}}<mark>{{.Text}}</mark>{{else}}{{.Text}}{{end}}{{end}}{{end}}

{{define "fold"}}{{if .Desc}}<details><summary>{{.Desc}}</summary><div class="text">{{.Text}}</div>{{if .More}}<p class="more">{{.More}} more characters are not shown here (pdc text OUT ID).</p>{{end}}</details>{{end}}{{end}}
`))

// docLinkData is the data of the doclink template: a document id, linked
// to its URL when it has a safe one (safeURL).
type docLinkData struct{ ID, URL string }

const styleCSS = `body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 0 1.5em 3em; color: #1d1d1f; }
h1 { margin: .6em 0 .1em; } h2 { margin-top: 1.6em; font-size: 1.2em; }
.meta, .more, footer { color: #666; font-size: .9em; }
table { border-collapse: collapse; }
.kv th { text-align: left; padding: .15em 1em .15em 0; font-weight: 600; vertical-align: top; }
.list { width: 100%; } .list th, .list td { border-bottom: 1px solid #e3e3e3; padding: .3em .5em; text-align: left; vertical-align: top; }
.list th { background: #f5f5f7; }
.passage { color: #444; font-size: .92em; max-width: 40em; }
.reason { display: inline-block; background: #f0f0f3; border-radius: 3px; padding: 0 .4em; margin: 0 .2em .2em 0; font-size: .9em; }
.doc { font-family: ui-monospace, monospace; font-size: .92em; word-break: break-all; }
.hists { display: flex; flex-wrap: wrap; gap: 2em; }
.hist rect { fill: #4a7bd0; } .hist text { font-size: 11px; text-anchor: middle; fill: #333; }
.sbs { width: 100%; table-layout: fixed; margin-top: 1.5em; font-size: .93em; }
.sbs col.side { width: calc(50% - 1.25em); } .sbs col.mark { width: 2.5em; }
.sbs th { text-align: left; padding: .3em .5em; background: #f5f5f7; }
.sbs td { vertical-align: top; padding: .2em .5em; overflow-wrap: anywhere; }
.sbs td.mark { text-align: center; color: #8a6d00; font-family: ui-monospace, monospace; }
.sbs tr.pair td { background: #fff6d0; }
.sbs tr.start td { border-top: 2px solid #d4a800; padding-top: .5em; color: #6b5500; font-size: .9em; }
.sbs tr.start:target td { background: #ffe58f; }
.sbs tr.end td { border-top: 2px solid #d4a800; padding: 0; height: .6em; }
.sbs tr.context td, .sbs tr.fold td { color: #555; }
.sbs details summary { cursor: pointer; color: #666; }
.sbs details .text { white-space: pre-wrap; margin: .4em 0; }
mark { background: #ffc53d; }
footer { margin-top: 3em; }
figure { margin: 0; } figcaption { color: #555; font-size: .9em; text-align: center; }
`
