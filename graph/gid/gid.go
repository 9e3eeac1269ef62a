// Package gid encodes and decodes the opaque global object ids of the
// GraphQL `Node` interface (the Relay object identification spec).
//
// A global id is the unpadded base64url encoding of "Type:n[:n…]": the
// GraphQL type name and the integers that find the object (its database id,
// preceded by its project's id for objects looked up within a project).
// Clients must treat ids as opaque.
package gid

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Node is the Go side of the GraphQL `Node` interface: any object the
// resolvers return for a type that implements it.
type Node interface{}

// Encode returns the global id of the object of type typ found by keys.
func Encode(typ string, keys ...int64) string {
	var b strings.Builder
	b.WriteString(typ)
	for _, k := range keys {
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(k, 10))
	}
	return base64.RawURLEncoding.EncodeToString([]byte(b.String()))
}

// Decode returns the type name and keys of a global id; ok is false when id
// was not made by Encode.
func Decode(id string) (typ string, keys []int64, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return "", nil, false
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) < 2 || parts[0] == "" {
		return "", nil, false
	}
	for _, p := range parts[1:] {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n <= 0 || strconv.FormatInt(n, 10) != p {
			return "", nil, false
		}
		keys = append(keys, n)
	}
	return parts[0], keys, true
}
