package artifactstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3ServerEnv names the S3-compatible server binary the tests start
// (versitygw; .ci/run builds it).
const S3ServerEnv = "DOCSD_TEST_S3_SERVER"

// S3 is a real S3 server started for one test, with one empty bucket.
type S3 struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	Bucket    string
	Client    *minio.Client
}

// StartS3 starts the server named by DOCSD_TEST_S3_SERVER (versitygw, on
// a POSIX directory of the test's own) and makes a bucket. Without the
// variable the test is skipped, loudly, except under CI=true, where it
// fails. The server stops when the test ends.
func StartS3(tb testing.TB) *S3 {
	tb.Helper()
	bin := os.Getenv(S3ServerEnv)
	if bin == "" {
		msg := S3ServerEnv + " is not set: no S3 server to test against (bash .ci/run builds versitygw and sets it)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip("SKIPPED: " + msg)
	}
	s := &S3{AccessKey: "docsdtest", SecretKey: "docsdtestsecret", Bucket: "docsd-" + randomHex(4)}
	addr := freeAddr(tb)
	s.Endpoint = "http://" + addr
	dir := tb.TempDir()
	cmd := exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--port", addr, "posix", dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Wait, with a generous deadline, until the server answers.
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			tb.Fatalf("%s exited: %s", bin, out.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not answer on %s: %v\n%s", bin, addr, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		tb.Fatal(err)
	}
	s.Client = c
	if err := c.MakeBucket(context.Background(), s.Bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		tb.Fatalf("making bucket %s: %v\n%s", s.Bucket, err, out.String())
	}
	return s
}

// URL is the artifacts URL of the bucket under prefix.
func (s *S3) URL(prefix string) string { return fmt.Sprintf("s3://%s/%s", s.Bucket, prefix) }

// Keys lists the object keys under prefix.
func (s *S3) Keys(tb testing.TB, prefix string) []string {
	tb.Helper()
	var keys []string
	for o := range s.Client.ListObjects(context.Background(), s.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			tb.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// freeAddr returns a loopback address with a port free at the moment.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
