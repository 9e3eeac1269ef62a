package main

// badgeKeys are the keys of projects' docs badge tokens: --secret-key,
// then --old-secret-key, so that badge URLs made before a rotation keep
// working until the old key is dropped. None without --secret-key: then no
// token is made or accepted.
func (s *Settings) badgeKeys() []string {
	var keys []string
	for _, k := range []string{s.secretKey, s.oldSecretKey} {
		if k != "" && s.secretKey != "" {
			keys = append(keys, k)
		}
	}
	return keys
}
