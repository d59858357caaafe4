#!/usr/bin/env bash
# check-compose.sh: validate docker/docker-compose.yml and docker/config without a Docker
# engine. Uses `docker compose config` when the compose plugin is installed, and always a
# static check in Python (PyYAML): services, images, commands, published ports, env_file
# keys. Exit 0 when valid.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../docker" && pwd)

if docker compose version >/dev/null 2>&1; then
	docker compose -f "$DIR/docker-compose.yml" config -q
	echo "check-compose: docker compose config: ok"
fi

python3 -c 'import yaml' 2>/dev/null ||
	{ echo "check-compose: needs PyYAML (pip install pyyaml)" >&2; exit 1; }

python3 - "$DIR" <<'PY'
import os, re, sys, yaml

d = sys.argv[1]
errors = []
def need(cond, msg):
    if not cond:
        errors.append(msg)

with open(os.path.join(d, "docker-compose.yml")) as f:
    doc = yaml.safe_load(f)
services = doc.get("services") or {}
want = {
    "namenode": (["hdfs", "namenode"], {"8020", "9870"}),
    "datanode": (["hdfs", "datanode"], {"9864", "9866"}),
    "resourcemanager": (["yarn", "resourcemanager"], {"8088", "8032"}),
    "nodemanager": (["yarn", "nodemanager"], set()),
}
need(set(services) == set(want), f"services {sorted(services)}, want {sorted(want)}")
for name, (cmd, ports) in want.items():
    s = services.get(name) or {}
    need(str(s.get("image", "")).startswith("apache/hadoop:3"), f"{name}: image {s.get('image')!r}")
    need(s.get("command") == cmd, f"{name}: command {s.get('command')!r}, want {cmd}")
    need(s.get("hostname") == name, f"{name}: hostname {s.get('hostname')!r}, want {name!r}")
    env_file = s.get("env_file")
    need(env_file in ("./config", ["./config"]), f"{name}: env_file {env_file!r}")
    published = set()
    for p in s.get("ports") or []:
        m = re.fullmatch(r"(\d+):(\d+)", str(p))
        need(m is not None and m.group(1) == m.group(2), f"{name}: port {p!r} not HOST:SAME")
        if m:
            published.add(m.group(1))
    need(published == ports, f"{name}: ports {sorted(published)}, want {sorted(ports)}")
    for dep in s.get("depends_on") or []:
        need(dep in services, f"{name}: depends_on unknown service {dep!r}")

env = {}
with open(os.path.join(d, "config")) as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Z-]+\.(XML|CFG|PROPERTIES))_([A-Za-z0-9._-]+)=(.*)", line)
        need(m is not None, f"config:{n}: not FILE.XML_key=value: {line!r}")
        if m:
            key = m.group(1) + "_" + m.group(3)
            need(key not in env, f"config:{n}: duplicate {key}")
            env[key] = m.group(4)
required = {
    "CORE-SITE.XML_fs.defaultFS": "hdfs://namenode",
    "HDFS-SITE.XML_dfs.namenode.rpc-address": "namenode:8020",
    "HDFS-SITE.XML_dfs.replication": "1",
    "HDFS-SITE.XML_dfs.client.use.datanode.hostname": "true",
    "MAPRED-SITE.XML_mapreduce.framework.name": "yarn",
    "MAPRED-SITE.XML_yarn.app.mapreduce.am.env": "HADOOP_MAPRED_HOME=$HADOOP_HOME",
    "MAPRED-SITE.XML_mapreduce.map.env": "HADOOP_MAPRED_HOME=$HADOOP_HOME",
    "MAPRED-SITE.XML_mapreduce.reduce.env": "HADOOP_MAPRED_HOME=$HADOOP_HOME",
    "YARN-SITE.XML_yarn.resourcemanager.hostname": "resourcemanager",
    "YARN-SITE.XML_yarn.nodemanager.aux-services": "mapreduce_shuffle",
    "YARN-SITE.XML_yarn.nodemanager.pmem-check-enabled": "false",
    "YARN-SITE.XML_yarn.nodemanager.vmem-check-enabled": "false",
}
for k, v in required.items():
    need(env.get(k) == v, f"config: {k}={env.get(k)!r}, want {v!r}")
nn = services.get("namenode", {}).get("environment", {}) or {}
need(nn.get("ENSURE_NAMENODE_DIR") == env.get("HDFS-SITE.XML_dfs.namenode.name.dir"),
     "namenode: ENSURE_NAMENODE_DIR must equal dfs.namenode.name.dir")

for e in errors:
    print("check-compose:", e, file=sys.stderr)
if errors:
    sys.exit(1)
print(f"check-compose: {len(services)} services, {len(env)} config keys: ok")
PY
