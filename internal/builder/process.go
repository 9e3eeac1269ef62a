package builder

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// MaxOutput is the number of characters of a command's output that is
// recorded; longer output is cut and TruncationNotice
// appended.
const MaxOutput = 2097152

// TruncationNotice follows output that was cut at MaxOutput characters.
const TruncationNotice = "\n\n\nOutput is too big. Chunked at 2097152 bytes"

// maxCapture bounds the bytes kept in memory while a command runs: at most
// 4 bytes per character plus room for invalid sequences.
const maxCapture = 4*MaxOutput + 1024

// systemPath is the PATH of every build command before `<env>/bin` is
// prepended: the usual system directories, never docsd's own PATH.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// environ is an ordered set of environment variables; a later Set of a name
// replaces the earlier value in place.
type environ struct {
	names  []string
	values map[string]string
}

func newEnviron() *environ { return &environ{values: map[string]string{}} }

// Set sets name to value.
func (e *environ) Set(name, value string) {
	if _, ok := e.values[name]; !ok {
		e.names = append(e.names, name)
	}
	e.values[name] = value
}

// Get returns the value of name, "" when unset.
func (e *environ) Get(name string) string { return e.values[name] }

// Clone returns an independent copy.
func (e *environ) Clone() *environ {
	c := &environ{names: append([]string(nil), e.names...), values: make(map[string]string, len(e.values))}
	for k, v := range e.values {
		c.values[k] = v
	}
	return c
}

// List returns the variables as NAME=value strings for exec.
func (e *environ) List() []string {
	out := make([]string, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, n+"="+e.values[n])
	}
	return out
}

// masker replaces secret values (project environment variable values of 4
// characters or more) by `***`.
type masker struct {
	r       *strings.Replacer
	longest int      // characters of the longest secret
	secrets []string // longest first
}

// newMasker returns a masker for values; shorter values are left alone.
// Longer values are replaced first, so that a value containing another is
// masked whole.
func newMasker(values []string) *masker {
	var secrets []string
	seen := map[string]bool{}
	for _, v := range values {
		if utf8.RuneCountInString(v) >= 4 && !seen[v] {
			seen[v] = true
			secrets = append(secrets, v)
		}
	}
	if len(secrets) == 0 {
		return &masker{}
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, "***")
	}
	m := &masker{r: strings.NewReplacer(pairs...), secrets: secrets}
	for _, s := range secrets {
		m.longest = max(m.longest, utf8.RuneCountInString(s))
	}
	return m
}

// with returns a masker of m's secrets and more.
func (m *masker) with(more ...string) *masker {
	if m == nil {
		return newMasker(more)
	}
	return newMasker(append(append([]string(nil), m.secrets...), more...))
}

// Mask returns s with every secret replaced by `***`.
func (m *masker) Mask(s string) string {
	if m == nil || m.r == nil {
		return s
	}
	return m.r.Replace(s)
}

// limitedBuffer keeps the first max bytes written to it and counts the rest.
// It is safe for the concurrent writes of a command's stdout and stderr.
type limitedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - b.buf.Len()
	if room >= len(p) {
		b.buf.Write(p)
	} else {
		if room > 0 {
			b.buf.Write(p[:room])
		}
		b.dropped += int64(len(p) - max(room, 0))
	}
	return len(p), nil
}

// decodeOutput decodes raw command output as UTF-8 with replacement and
// removes NUL characters.
func decodeOutput(raw []byte) string {
	return strings.ReplaceAll(strings.ToValidUTF8(string(raw), "\uFFFD"), "\x00", "")
}

// recordedOutput is decoded output as it is stored: masked first and only
// then truncated to MaxOutput characters, so that the limit never cuts a
// secret in two and leaves its first part unmasked. cut says that bytes
// were dropped while capturing; the characters
// before that point that could begin a cut secret are dropped too.
func recordedOutput(s string, cut bool, m *masker) string {
	if cut {
		s = m.trimPartial(s)
	}
	s = m.Mask(s)
	if utf8.RuneCountInString(s) > MaxOutput {
		n, i := 0, 0
		for i = range s {
			if n == MaxOutput {
				break
			}
			n++
		}
		s = s[:i]
		cut = true
	}
	if cut {
		s += TruncationNotice
	}
	return s
}

// trimPartial returns s without its longest ending that begins a secret
// (a proper prefix of one): output that goes on, or was cut, may complete
// the secret there, and its first part must not be shown unmasked.
func (m *masker) trimPartial(s string) string {
	if m == nil {
		return s
	}
	cut := 0
	for _, sec := range m.secrets {
		for k := min(len(sec)-1, len(s)); k > cut; k-- {
			if strings.HasSuffix(s, sec[:k]) {
				cut = k
				break
			}
		}
	}
	return s[:len(s)-cut]
}

// liveOutput is the output of a command that is still running as it is
// stored: recordedOutput without the truncation notice unless bytes were
// dropped, and without an ending that may be the start of a secret.
func liveOutput(raw []byte, cut bool, m *masker) string {
	s := decodeOutput(raw)
	if !cut {
		s = m.trimPartial(s)
	}
	return recordedOutput(s, cut, m)
}

// processResult is what running one process produced.
type processResult struct {
	Output   string // decoded, neither masked nor truncated (recordedOutput does both)
	Cut      bool   // output beyond maxCapture bytes was dropped while capturing
	ExitCode int
	Start    time.Time
	End      time.Time
	Killed   bool // the process group was killed because ctx ended
}

// killGracePeriod is how long Wait waits for a killed command's pipes to
// close before giving up on its output.
const killGracePeriod = 5 * time.Second

// runProcess runs argv (argv[0] resolved to path) in dir with env, stdin
// closed, stdout and stderr combined. The process starts its own process
// group; when ctx ends the whole group is killed, so that no child outlives
// the build. An error is returned only when the process could not be
// started; a non-zero exit is a result.
func runProcess(ctx context.Context, path string, argv []string, dir string, env []string) (processResult, error) {
	return runProcessLive(ctx, path, argv, dir, env, nil)
}

// liveEvery is how often the output of a running command is handed to
// its tick function (live output: at least every second).
const liveEvery = time.Second

// runProcessLive is runProcess that, while the process runs, calls tick
// (when not nil) about every liveEvery with the output captured so far and
// whether some was dropped. tick runs on its own goroutine, never after
// runProcessLive returned.
func runProcessLive(ctx context.Context, path string, argv []string, dir string, env []string, tick func(raw []byte, cut bool)) (processResult, error) {
	out := &limitedBuffer{max: maxCapture}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args = argv
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	cmd.Stdout = out
	cmd.Stderr = out
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd.Process) }
	cmd.WaitDelay = killGracePeriod
	res := processResult{Start: now()}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	stopTicks := ticks(out, tick)
	err := cmd.Wait()
	stopTicks()
	res.End = now()
	// Whatever happened, make sure no member of the group is left behind
	// (a daemonised grandchild keeps running after its parent exited).
	killProcessGroup(cmd.Process)
	res.Killed = ctx.Err() != nil
	res.ExitCode = exitCode(cmd, err)
	res.Output = decodeOutput(out.buf.Bytes())
	res.Cut = out.dropped > 0
	return res, nil
}

// ticks calls tick with out's snapshot every liveEvery until the returned
// function is called, which waits for a call in progress to end.
func ticks(out *limitedBuffer, tick func(raw []byte, cut bool)) func() {
	if tick == nil {
		return func() {}
	}
	return every(context.Background(), liveEvery, func() bool {
		tick(out.snapshot())
		return true
	})
}

// snapshot returns a copy of the bytes kept so far and whether any were
// dropped.
func (b *limitedBuffer) snapshot() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes()), b.dropped > 0
}

// exitCode is the process's exit status, or minus the signal number that
// killed it (-9 for SIGKILL).
func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		if code := cmd.ProcessState.ExitCode(); code >= 0 {
			return code
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// now is the current time in UTC with the store's microsecond precision.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
