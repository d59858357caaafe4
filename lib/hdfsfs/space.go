package hdfsfs

import (
	"fmt"
	"strings"
)

// noSpace are the messages of HDFS's out-of-space errors, as the NameNode
// names them to pdc's client and to Hadoop's (a job's task fails with the
// same exception): a directory's space or name quota is used up, or no
// DataNode has room for a block.
var noSpace = []string{
	"DSQuotaExceededException",
	"NSQuotaExceededException",
	"QuotaByStorageTypeExceededException",
	"could only be written to 0 of the",
}

// ExplainSpace adds what to do to an error that says HDFS is out of space
// (noSpace) for pdc's own writes or a job's; other errors pass unchanged.
// Nothing is half-written then: pdc writes its files atomically, and a
// job's output is renamed into place only when the job succeeds, so the
// same command, rerun, resumes after the last job that completed.
func ExplainSpace(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range noSpace {
		if strings.Contains(msg, s) {
			return fmt.Errorf("%w (HDFS is out of space: a quota on a directory above the output, `hdfs dfs -count -q -h DIR` shows it, or the DataNodes' disks; free space or raise the quota, then rerun the same command: it resumes after the last job that completed)", err)
		}
	}
	return err
}
