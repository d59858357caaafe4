package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault tests kill a daemon of the test cluster in the middle of a
// run, at a moment read from the cluster (a map task attempt RUNNING on the
// node, from the MapReduce application master's REST API through the
// ResourceManager's proxy), and then read from the cluster what Hadoop did.
// They need the cluster of separate daemons that scripts/hadoop-cluster.sh
// starts (its `pids` command names them); the liveness intervals it sets
// (a node lost after 20 s) keep them short.

// daemon is one daemon of the test cluster: its pid and the address it
// registered with (DataNodes, NodeManagers).
type daemon struct {
	pid  int
	node string
}

// clusterScript runs scripts/hadoop-cluster.sh with args.
func clusterScript(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"../scripts/hadoop-cluster.sh"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("scripts/hadoop-cluster.sh %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// clusterDaemons returns the daemons of the test cluster by name (nn, dn1,
// ..., nm1, ...), or skips the test when the cluster is not one of
// separate daemons.
func clusterDaemons(t *testing.T) map[string]daemon {
	t.Helper()
	out, err := exec.Command("bash", "../scripts/hadoop-cluster.sh", "pids").Output()
	ds := map[string]daemon{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var name, node string
		var pid int
		if n, _ := fmt.Sscan(line, &name, &pid, &node); n == 3 {
			ds[name] = daemon{pid, node}
		}
	}
	if err != nil || ds["nm2"].pid == 0 || ds["dn3"].pid == 0 {
		t.Skipf("the cluster is not scripts/hadoop-cluster.sh's separate daemons (pids: %v)", err)
	}
	return ds
}

// getJSON GETs url into v.
func getJSON(url string, v any) error {
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s %s", url, resp.Status, body)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// nodeStates returns the ResourceManager's nodes: id -> state, and HTTP
// address -> id.
func nodeStates() (state, byHTTP map[string]string, err error) {
	var r struct {
		Nodes struct {
			Node []struct{ ID, State, NodeHTTPAddress string }
		}
	}
	if err := getJSON("http://localhost:8088/ws/v1/cluster/nodes?states=NEW,RUNNING,UNHEALTHY,DECOMMISSIONED,LOST,REBOOTED,SHUTDOWN", &r); err != nil {
		return nil, nil, err
	}
	state, byHTTP = map[string]string{}, map[string]string{}
	for _, n := range r.Nodes.Node {
		state[n.ID], byHTTP[n.NodeHTTPAddress] = n.State, n.ID
	}
	return state, byHTTP, nil
}

// rmNodes is nodeStates for the test's goroutine: an error fails the test.
func rmNodes(t *testing.T) (state, byHTTP map[string]string) {
	t.Helper()
	state, byHTTP, err := nodeStates()
	if err != nil {
		t.Fatal(err)
	}
	return state, byHTTP
}

// runningMap returns the job id of application app and the node (as the
// ResourceManager names it) of a map task attempt RUNNING (with elsewhere,
// on a node other than the one of the application master), or ok false
// when there is none now.
func runningMap(t *testing.T, app string, elsewhere bool) (job, node string, ok bool) {
	var a struct {
		App struct{ AmHostHttpAddress, State string }
	}
	if getJSON("http://localhost:8088/ws/v1/cluster/apps/"+app, &a) != nil || a.App.State != "RUNNING" {
		return "", "", false
	}
	base := "http://localhost:8088/proxy/" + app + "/ws/v1/mapreduce/jobs"
	var jobs struct {
		Jobs struct{ Job []struct{ ID string } }
	}
	if getJSON(base, &jobs) != nil || len(jobs.Jobs.Job) == 0 {
		return "", "", false
	}
	job = jobs.Jobs.Job[0].ID
	var tasks struct {
		Tasks struct{ Task []struct{ ID, State string } }
	}
	if getJSON(base+"/"+job+"/tasks?type=m", &tasks) != nil {
		return "", "", false
	}
	_, byHTTP := rmNodes(t)
	for _, task := range tasks.Tasks.Task {
		if task.State != "RUNNING" {
			continue
		}
		var at struct {
			TaskAttempts struct {
				TaskAttempt []struct{ State, NodeHttpAddress string }
			}
		}
		if getJSON(base+"/"+job+"/tasks/"+task.ID+"/attempts", &at) != nil {
			continue
		}
		for _, x := range at.TaskAttempts.TaskAttempt {
			if x.State == "RUNNING" && (!elsewhere || x.NodeHttpAddress != a.App.AmHostHttpAddress && byHTTP[x.NodeHttpAddress] != "") {
				return job, byHTTP[x.NodeHttpAddress], true
			}
		}
	}
	return job, "", false
}

// faultRun starts pdc run --hadoop and calls kill with each application
// the run submits, until kill returns true; it returns the run's exit
// code, its stderr, and the job kill acted in.
func faultRun(t *testing.T, env []string, kill func(app string) (string, bool), args ...string) (int, string, string) {
	t.Helper()
	cmd := pdcCmd(args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	apps := make(chan string, 64)
	var log strings.Builder
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if _, id, ok := strings.Cut(sc.Text(), "hadoop: job job_"); ok {
				apps <- "application_" + strings.Fields(id)[0]
			}
		}
		close(apps)
		close(done)
	}()
	job := ""
	for app := range apps {
		deadline := time.Now().Add(5 * time.Minute)
		for time.Now().Before(deadline) {
			if j, ok := kill(app); ok {
				job = j
				break
			}
			var a struct{ App struct{ State string } }
			if getJSON("http://localhost:8088/ws/v1/cluster/apps/"+app, &a) == nil &&
				(a.App.State == "FINISHED" || a.App.State == "FAILED" || a.App.State == "KILLED") {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if job != "" {
			break
		}
	}
	for range apps { // the rest of the run
	}
	<-done
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, log.String(), job
}

// faultInput writes the sample four times over, with other ids, so that a
// job has several map tasks on the test cluster's 1 MiB blocks, and
// returns it with the spans of its local run.
func faultInput(t *testing.T) (input, spans string) {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 4 {
		b.WriteString(strings.ReplaceAll(string(data), `{"id": "`, fmt.Sprintf(`{"id": "c%d/`, i)))
	}
	path := filepath.Join(t.TempDir(), "pages.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `{"id": "c3/`) {
		t.Fatal("the sample's records do not start with an id")
	}
	local := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", path, "--output", local, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	spans, _, _ = runPDC(t, "spans", local)
	return path, spans
}

// jobAttempts returns the killed and failed map and reduce attempts of a
// finished job, from the JobHistory server.
func jobAttempts(t *testing.T, job string) (killed, failed int) {
	t.Helper()
	var j struct {
		Job struct {
			KilledMapAttempts, FailedMapAttempts, KilledReduceAttempts, FailedReduceAttempts int
		}
	}
	var err error
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(time.Second) {
		if err = getJSON("http://localhost:19888/ws/v1/history/mapreduce/jobs/"+job, &j); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the job history of %s: %v", job, err)
	}
	return j.Job.KilledMapAttempts + j.Job.KilledReduceAttempts, j.Job.FailedMapAttempts + j.Job.FailedReduceAttempts
}

// TestHadoopNodeManagerKilled: SIGKILL of a NodeManager while a map task
// runs on it (not the application master's node): the ResourceManager
// marks the node LOST, the application master runs the task's attempts
// again elsewhere, and the run's spans are the local run's.
func TestHadoopNodeManagerKilled(t *testing.T) {
	env := hadoopEnv(t)
	ds := clusterDaemons(t)
	input, want := faultInput(t)
	out := hdfsDir(t)
	killed := ""
	restarted, restartErr := make(chan struct{}), error(nil)
	var code int
	var log, job string
	// YARN may place every map task of a run on the application master's
	// node; the run is then made again (at most three times) until one
	// runs elsewhere.
	for try := 0; try < 3 && killed == ""; try++ {
		if try > 0 {
			out = hdfsDir(t)
		}
		code, log, job = faultRun(t, env, func(app string) (string, bool) {
			job, node, ok := runningMap(t, app, true)
			if !ok {
				return "", false
			}
			for name, d := range ds {
				if strings.HasPrefix(name, "nm") && d.node == node {
					if err := syscall.Kill(d.pid, syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					killed = name
					t.Logf("SIGKILL %s (pid %d, node %s) while a map task of %s runs on it", name, d.pid, node, job)
					// Once the ResourceManager has lost the node, a new
					// NodeManager takes its place for the rest of the run.
					go func() {
						defer close(restarted)
						for start := time.Now(); time.Since(start) < 2*time.Minute; time.Sleep(time.Second) {
							if state, _, err := nodeStates(); err == nil && state[node] == "LOST" {
								break
							}
						}
						restartErr = exec.Command("bash", "../scripts/hadoop-cluster.sh", "restart", name).Run()
					}()
					return job, true
				}
			}
			return "", false
		}, "run", "--hadoop", "--input", input, "--output", out, "--reducers", "2")
	}
	if killed != "" {
		<-restarted
		if restartErr != nil {
			t.Errorf("restart %s: %v", killed, restartErr)
		}
	}
	if killed == "" {
		t.Fatalf("no map task ran on a node other than its application master's:\n%s", log)
	}
	if code != 0 {
		t.Fatalf("pdc run --hadoop with %s killed: exit %d\n%s", killed, code, log)
	}
	if got, _, _ := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out); got != want || strings.Count(want, "\n") < 20 {
		t.Errorf("spans with %s killed (%d lines) differ from the local run's (%d lines)", killed, strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	state, _ := rmNodes(t)
	if s := state[ds[killed].node]; s != "LOST" {
		t.Errorf("node %s of the killed %s is %q, want LOST", ds[killed].node, killed, s)
	}
	k, f := jobAttempts(t, job)
	if k+f == 0 {
		t.Errorf("job %s: no task attempt killed or failed with its node", job)
	}
	t.Logf("node %s LOST; job %s: %d attempts killed, %d failed, run again elsewhere", ds[killed].node, job, k, f)
}

// nnState returns the NameNode's live and dead DataNodes and its blocks
// under their replication (its JMX).
func nnState(t *testing.T) (live, dead, low, missing int) {
	t.Helper()
	var r struct {
		Beans []struct {
			NumLiveDataNodes, NumDeadDataNodes, UnderReplicatedBlocks, MissingBlocks int
		}
	}
	if err := getJSON("http://localhost:9870/jmx?qry=Hadoop:service=NameNode,name=FSNamesystem*", &r); err != nil {
		t.Fatal(err)
	}
	for _, b := range r.Beans {
		live, dead = max(live, b.NumLiveDataNodes), max(dead, b.NumDeadDataNodes)
		low, missing = max(low, b.UnderReplicatedBlocks), max(missing, b.MissingBlocks)
	}
	return live, dead, low, missing
}

// TestHadoopDataNodeKilled: SIGKILL of a DataNode while a map task runs:
// the run completes with the local run's spans (every block has a second
// replica), the NameNode declares the node dead, and the blocks it held
// are copied again until none is under its replication of 2.
func TestHadoopDataNodeKilled(t *testing.T) {
	env := hadoopEnv(t)
	ds := clusterDaemons(t)
	input, want := faultInput(t)
	out := hdfsDir(t)
	killed, blocks := false, 0
	code, log, job := faultRun(t, env, func(app string) (string, bool) {
		job, _, ok := runningMap(t, app, false)
		if !ok {
			return "", false
		}
		blocks = dnBlocks(t, ds["dn2"].node)
		if err := syscall.Kill(ds["dn2"].pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = true
		t.Logf("SIGKILL dn2 (pid %d, %s) while a map task of %s runs", ds["dn2"].pid, ds["dn2"].node, job)
		return job, true
	}, "run", "--hadoop", "--input", input, "--output", out, "--reducers", "2")
	defer func() {
		if killed {
			clusterScript(t, "restart", "dn2")
		}
	}()
	if !killed {
		t.Fatalf("no map task ran:\n%s", log)
	}
	if code != 0 {
		t.Fatalf("pdc run --hadoop with dn2 killed: exit %d\n%s", code, log)
	}
	if got, _, _ := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out); got != want || strings.Count(want, "\n") < 20 {
		t.Errorf("spans with dn2 killed (%d lines) differ from the local run's (%d lines)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	var live, dead, low, missing int
	for start := time.Now(); time.Since(start) < 2*time.Minute; time.Sleep(time.Second) {
		if live, dead, low, missing = nnState(t); dead == 1 && low == 0 {
			break
		}
	}
	if live != 2 || dead != 1 || low != 0 || missing != 0 || blocks == 0 {
		t.Errorf("after dn2 died: %d live, %d dead DataNodes, %d blocks under replication, %d missing (dn2 held %d); want 2, 1, 0, 0 (and some)", live, dead, low, missing, blocks)
	}
	t.Logf("job %s: dn2 held %d blocks when killed; the NameNode declared it dead and copied them again: %d live DataNodes, %d blocks under replication, %d missing", job, blocks, live, low, missing)
}

// dnBlocks returns the blocks the NameNode counts on the DataNode at addr
// (ip:port).
func dnBlocks(t *testing.T, addr string) int {
	t.Helper()
	var r struct{ Beans []struct{ LiveNodes string } }
	if err := getJSON("http://localhost:9870/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo", &r); err != nil || len(r.Beans) == 0 {
		t.Fatalf("NameNodeInfo: %v", err)
	}
	var nodes map[string]struct {
		XferAddr  string
		NumBlocks int
	}
	if err := json.Unmarshal([]byte(r.Beans[0].LiveNodes), &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.XferAddr == addr {
			return n.NumBlocks
		}
	}
	t.Fatalf("no live DataNode at %s", addr)
	return 0
}

// TestHadoopNameNodeRestarted: the NameNode stopped and started again
// while a map task runs (the parse job's tasks held until then,
// PDC_FAULT=hold@parse, so that one is running when the test looks). The
// driver either survives (the clients retry their calls while it is down)
// or fails with a one-line error, and a rerun of the same command resumes
// and gives the local run's spans.
func TestHadoopNameNodeRestarted(t *testing.T) {
	env := hadoopEnv(t)
	ds := clusterDaemons(t)
	input, want := faultInput(t)
	out := hdfsDir(t)
	args := []string{"run", "--hadoop", "--input", input, "--output", out, "--reducers", "2"}
	held := filepath.Join(t.TempDir(), "held")
	writeFile(t, held, "")
	defer os.Remove(held)
	// Let the tasks go if no running one is seen in time (the test then
	// fails saying so), so that it does not hang.
	defer time.AfterFunc(3*time.Minute, func() { os.Remove(held) }).Stop()
	restarted := false
	code, log, job := faultRun(t, append(env[:len(env):len(env)], "PDC_FAULT=hold@parse:"+held), func(app string) (string, bool) {
		job, _, ok := runningMap(t, app, false)
		if !ok {
			return "", false
		}
		defer os.Remove(held) // the held tasks go on
		if err := syscall.Kill(ds["nn"].pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); syscall.Kill(ds["nn"].pid, 0) == nil && time.Since(start) < time.Minute; time.Sleep(100 * time.Millisecond) {
		}
		t.Logf("stopped the NameNode (pid %d) while a map task of %s runs; starting it again", ds["nn"].pid, job)
		clusterScript(t, "restart", "nn")
		restarted = true
		return job, true
	}, args...)
	if !restarted {
		t.Fatalf("no map task ran:\n%s", log)
	}
	if code != 0 {
		// The error line names the failed job (the task's stderr follows it).
		errLine := ""
		for _, l := range strings.Split(log, "\n") {
			if strings.HasPrefix(l, "pdc: job ") && strings.Contains(l, job) {
				errLine = l
			}
		}
		if errLine == "" {
			t.Errorf("the driver failed (exit %d) without a line naming the failed job %s:\n%s", code, job, log)
		}
		t.Logf("the driver failed while the NameNode restarted: %.300s", errLine)
		var stderr string
		if _, stderr, code = runPDCEnv(t, env, args...); code != 0 {
			t.Fatalf("rerun after the NameNode restarted: exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "pdc: resuming the unfinished run") {
			t.Errorf("the rerun did not resume:\n%s", stderr)
		}
	} else {
		t.Logf("the run survived the NameNode's restart (%s)", job)
	}
	if got, _, _ := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out); got != want || strings.Count(want, "\n") < 20 {
		t.Errorf("spans after the NameNode restarted (%d lines) differ from the local run's (%d lines)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
}

// TestHadoopSpaceQuota: HDFS out of space in the middle of a run (a space
// quota on the directory above OUT, 8 MiB: the uploaded sample and the
// first jobs fit, a later job's output does not). The driver stops with
// one error naming the job and the quota and saying what to do; no job
// directory is half-written (each has its _SUCCESS, the failed job's
// output is only under OUT/_tmp); with the quota lifted, the same command
// resumes and gives the local run's spans.
func TestHadoopSpaceQuota(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel() // the quota is on the test's own directory: no other run is touched
	dir := hdfsDir(t)
	out := dir + "/run"
	clusterScript(t, "fs", "-mkdir", "-p", dir)
	clusterScript(t, "dfsadmin", "-setSpaceQuota", "8m", dir)
	args := []string{"run", "--hadoop", "--input", sample, "--output", out, "--reducers", "2"}
	_, stderr, code := runPDCEnv(t, env, args...)
	if code == 0 {
		t.Fatalf("the run fit in the quota:\n%s", stderr)
	}
	last := strings.TrimSpace(stderr[strings.LastIndex(strings.TrimSpace(stderr), "\npdc: ")+1:])
	if !strings.HasPrefix(last, "pdc: ") || !strings.Contains(last, "DSQuotaExceededException") || !strings.Contains(last, "HDFS is out of space") ||
		!strings.Contains(last, "rerun the same command") || strings.Count(last, "\n") > 0 {
		t.Errorf("the error is not one line naming the quota and what to do:\n%s", stderr)
	}
	t.Logf("out of space: %.400s", last)
	ls, _, _ := runPDCEnv(t, env, "fs", "ls", out)
	for _, line := range strings.Split(strings.TrimSpace(ls), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "d" {
			continue
		}
		name := f[2][strings.LastIndex(f[2], "/")+1:]
		if name == "_tmp" {
			continue
		}
		if _, _, code := runPDCEnv(t, env, "fs", "cat", f[2]+"/_SUCCESS"); code != 0 {
			t.Errorf("%s is half-written: no _SUCCESS (%s)", f[2], ls)
		}
	}
	clusterScript(t, "dfsadmin", "-clrSpaceQuota", dir)
	if _, stderr, code = runPDCEnv(t, env, args...); code != 0 || !strings.Contains(stderr, "pdc: resuming the unfinished run") {
		t.Fatalf("rerun with the quota lifted: exit %d\n%s", code, stderr)
	}
	want, _, _ := runPDC(t, "spans", sampleRun(t))
	if got, _, _ := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out); got != want || strings.Count(want, "\n") < 20 {
		t.Errorf("spans after the quota was lifted (%d lines) differ from the local run's (%d lines)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
}
