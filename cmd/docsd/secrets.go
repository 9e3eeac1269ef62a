package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"

	"docsd/internal/ratelimit"
	"docsd/store"
)

// resolveOps checks the operations settings and reads key files.
func (s *Settings) resolveOps() error {
	var err error
	if s.secretKey, err = readKey("--secret-key", s.SecretKey); err != nil {
		return err
	}
	if s.oldSecretKey, err = readKey("--old-secret-key", s.OldSecretKey); err != nil {
		return err
	}
	if s.trustedProxies, err = parseProxies(s.TrustedProxies); err != nil {
		return err
	}
	if _, _, err := ratelimit.ParseRate(s.AuthFailureRate); err != nil {
		return fmt.Errorf("--auth-failure-rate: %v", err)
	}
	return nil
}

// readKey returns a key setting's key (readSecret). A key shorter than 16
// bytes is refused.
func readKey(flagName, value string) (string, error) {
	value, err := readSecret(value)
	if err != nil {
		return "", fmt.Errorf("%s: %v", flagName, err)
	}
	if value != "" && len(value) < 16 {
		return "", fmt.Errorf("%s: a key must be at least 16 characters (e.g. `openssl rand -hex 32`)", flagName)
	}
	return value, nil
}

// readSecret returns a secret setting's secret: the content of the file
// it names (trailing white space trimmed) when it names a regular file,
// else the value itself.
func readSecret(value string) (string, error) {
	if value == "" {
		return "", nil
	}
	if fi, err := os.Stat(value); err == nil && fi.Mode().IsRegular() {
		b, err := os.ReadFile(value)
		if err != nil {
			return "", err
		}
		value = strings.TrimRight(string(b), " \t\r\n")
	}
	return value, nil
}

// parseProxies reads a comma-separated list of addresses and CIDRs.
func parseProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is neither an address nor a CIDR", item)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// sealer is the store's secrets sealer from the key settings.
func (s *Settings) sealer() (*store.Sealer, error) {
	return store.NewSealer(s.secretKey, s.oldSecretKey)
}

// warnPlaintextSecrets logs, at server or worker start, that secrets are not
// encrypted at rest, and that the SQLite database or the data directory is
// open to other users (docsd creates them owner-only but keeps the modes of
// existing ones).
func (a *app) warnPlaintextSecrets() {
	if a.settings.secretKey == "" {
		a.logger.Warn("no --secret-key (DOCSD_SECRET_KEY): environment variable values and webhook secrets are stored in plain text; see docs/operations/secrets.md")
	}
	paths := []string{a.settings.DataDir}
	if db, ok := sqlitePath(a.settings.DatabaseURL); ok {
		paths = append(paths, db)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
			a.logger.Warn("readable by other users: chmod go-rwx it", "path", p, "mode", fmt.Sprintf("%#o", fi.Mode().Perm()))
		}
	}
}

// secretsSynopsis is the usage of `docsd secrets rotate`.
const secretsSynopsis = "secrets rotate --secret-key NEW [--old-secret-key OLD]"

// secrets runs `docsd secrets rotate`: every environment variable value and
// webhook secret is resealed with --secret-key (decrypted when it is empty),
// reading values sealed with --old-secret-key too.
func (c *command) secrets(ctx context.Context, sub string, args []string) error {
	const synopsis = secretsSynopsis
	if sub != "rotate" {
		return usageError(fmt.Sprintf("unknown command %q (see docsd secrets --help)", strings.TrimSpace("secrets "+sub)))
	}
	fs, env := c.flags("secrets rotate", synopsis)
	c.shown = adminFlags
	pos, err := c.parse(fs, env, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("usage: docsd " + synopsis)
	}
	a, err := c.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.close()
	n, err := a.store.ResealSecrets(ctx)
	if err != nil {
		return err
	}
	if a.settings.secretKey == "" {
		fmt.Fprintf(c.stdout, "%d values decrypted: secrets are now stored in plain text\n", n)
		return nil
	}
	sl, _ := a.settings.sealer()
	fmt.Fprintf(c.stdout, "%d values sealed with key %s\n", n, sl.KeyID())
	return nil
}
