package hdfsfs

import (
	"errors"
	"strings"
	"testing"
)

func TestExplainSpace(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		hint bool
	}{
		{"job index: hadoop job pdc-index (job_1_2) failed in reduce task task_1_2_r_000000: state FAILED: Task failed task_1_2_r_000000; the task's JVM: org.apache.hadoop.hdfs.protocol.DSQuotaExceededException: The DiskSpace quota of /q is exceeded: quota = 8388608 B = 8 MB but diskspace consumed = 8474846 B = 8.08 MB", true},
		{"output /q2/out: lock: create /q2/.out.pdc-lock: addBlock call failed with ERROR_APPLICATION (org.apache.hadoop.hdfs.protocol.DSQuotaExceededException)", true},
		{"mkdir /q/a: org.apache.hadoop.hdfs.protocol.NSQuotaExceededException: The NameSpace quota (directories and files) of directory /q is exceeded", true},
		{"File /o/_tmp/x could only be written to 0 of the 1 minReplication nodes. There are 3 datanode(s) running and 3 node(s) are excluded in this operation.", true},
		{"job parse: hadoop job pdc-parse failed in map task t: bad record", false},
		{"open /x: file does not exist", false},
	} {
		err := ExplainSpace(errors.New(tt.msg))
		if got := strings.Contains(err.Error(), "HDFS is out of space"); got != tt.hint || !strings.HasPrefix(err.Error(), tt.msg) {
			t.Errorf("ExplainSpace(%q) = %q, hint %v, want %v", tt.msg, err, got, tt.hint)
		}
	}
	if ExplainSpace(nil) != nil {
		t.Error("ExplainSpace(nil) != nil")
	}
}
