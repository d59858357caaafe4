package jobs

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// completionCmd is `pdc completion bash|zsh`: a completion script for the
// shell, with pdc's commands and each command's flags (read from its
// --help).
func (m *Main) completionCmd(args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(m.Stdout, "Usage: pdc completion bash|zsh\n\nPrints a completion script: eval \"$(pdc completion bash)\" in ~/.bashrc,\nor for zsh, in ~/.zshrc: eval \"$(pdc completion zsh)\".")
		return nil
	}
	if len(args) != 1 || (args[0] != "bash" && args[0] != "zsh") {
		return &UsageError{Msg: "completion: want bash or zsh", Cmd: "completion"}
	}
	var cases strings.Builder
	for _, cmd := range completedCommands {
		flags, err := m.commandFlags(cmd)
		if err != nil {
			return err
		}
		fmt.Fprintf(&cases, "\t\t%s) flags=%q ;;\n", cmd, strings.Join(flags, " "))
	}
	script := strings.NewReplacer("@COMMANDS@", strings.Join(completedCommands, " "), "@CASES@", cases.String()).Replace(bashCompletion)
	if args[0] == "zsh" {
		script = "autoload -U +X bashcompinit && bashcompinit\n" + script
	}
	_, err := fmt.Fprint(m.Stdout, script)
	return err
}

// completedCommands are the commands the completion offers.
var completedCommands = []string{"run", "spans", "show", "pairs", "clusters", "dedup", "boilerplate", "report", "text", "ingest", "eval", "fs", "help", "version", "completion"}

var flagLine = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)`)

// commandFlags lists a command's flags as "--name", from its --help.
func (m *Main) commandFlags(cmd string) ([]string, error) {
	switch cmd {
	case "help", "version", "completion", "fs":
		return nil, nil
	}
	var out bytes.Buffer
	sub := &Main{Stdin: m.Stdin, Stdout: &out, Stderr: &out, Getenv: m.Getenv}
	if err := sub.Run(context.Background(), []string{cmd, "--help"}); ExitCode(err) != 0 {
		return nil, fmt.Errorf("completion: flags of %s: %w", cmd, err)
	}
	var flags []string
	for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
		flags = append(flags, "--"+m[1])
	}
	slices.Sort(flags)
	return flags, nil
}

const bashCompletion = `# pdc completion (pdc completion bash)
_pdc() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} flags
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "@COMMANDS@" -- "$cur"))
		return
	fi
	case $cmd in
@CASES@		*) flags= ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _pdc pdc
`
