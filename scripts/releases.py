# releases.py: the checker of scripts/releases.sh, independent of pdc.
#
#   python3 scripts/releases.py TREE RELEASE_A RELEASE_B GROUPS_TSV
#
# A page of TREE/RELEASE_A and its counterpart (the same path under
# TREE/RELEASE_B) are copies when, by difflib's alignment of the words of
# their visible text (html.parser, script and style left out), each holds
# at least 0.9 of the other's words. Prints how many such pages have their
# counterpart in their group of `pdc pairs --groups` (GROUPS_TSV), and
# names the others on stderr with the two shares.
import sys, os, re, difflib, html.parser
class T(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.w=[]; s.skip=0
    def handle_starttag(s,t,a):
        if t in ('script','style'): s.skip+=1
    def handle_endtag(s,t):
        if t in ('script','style') and s.skip: s.skip-=1
    def handle_data(s,d):
        if not s.skip: s.w+=re.findall(r'\w+',d.lower())
def words(p):
    t=T(); t.feed(open(p,encoding='utf-8',errors='replace').read()); return t.w
root,a,b,groups=sys.argv[1:5]
grp={}
for line in open(groups):
    f=line.rstrip('\n').split('\t')
    if not f or f[0].startswith('#'): continue
    for d in f[1:]: grp[d]=set(f[1:])
pages=[]
for dp,_,fs in os.walk(os.path.join(root,a)):
    for f in fs:
        if f.endswith('.html'):
            rel=os.path.relpath(os.path.join(dp,f),os.path.join(root,a))
            if os.path.exists(os.path.join(root,b,rel)): pages.append(rel)
copies=grouped=0; near=[]
for rel in sorted(pages):
    wa,wb=words(os.path.join(root,a,rel)),words(os.path.join(root,b,rel))
    if not wa or not wb: continue
    m=sum(x.size for x in difflib.SequenceMatcher(None,wa,wb,autojunk=False).get_matching_blocks())
    ca,cb=m/len(wa),m/len(wb)
    if min(ca,cb)>=0.9:
        copies+=1
        pa,pb=a+'/'+rel,b+'/'+rel
        if pb in grp.get(pa,()): grouped+=1
        else: print('not grouped\t%s\t%.3f\t%.3f'%(rel,ca,cb),file=sys.stderr)
    elif min(ca,cb)>=0.8: near.append(rel)
print('pages in both releases %d; copies (>= 0.9 of each other\'s words) %d; grouped with their copy %d (%.4f); 0.8-0.9: %d'%(len(pages),copies,grouped,grouped/max(copies,1),len(near)))
