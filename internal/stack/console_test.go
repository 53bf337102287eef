package stack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus"
)

// TestConsoleOffLoopbackNeedsTLS: the console listens in the clear on a
// loopback address only, unless AllowPlaintext (serve --allow-plaintext);
// with a certificate and key (--tls-cert, --tls-key) it serves https, and
// a client that trusts the certificate reaches it.
func TestConsoleOffLoopbackNeedsTLS(t *testing.T) {
	cert, key := selfSigned(t)
	for _, tc := range []struct {
		name   string
		c      Console
		scheme string
	}{
		{"loopback", Console{Addr: "127.0.0.1:0"}, "http://"},
		{"every interface", Console{Addr: "0.0.0.0:0"}, ""},
		{"no host", Console{Addr: ":0"}, ""},
		{"every interface, plaintext allowed", Console{Addr: "0.0.0.0:0", AllowPlaintext: true}, "http://"},
		{"every interface over TLS", Console{Addr: "0.0.0.0:0", TLSCert: cert, TLSKey: key}, "https://"},
	} {
		ln, u, err := consoleListen(tc.c, slog.New(slog.DiscardHandler))
		if tc.scheme == "" {
			if !errors.Is(err, bus.ErrInvalidConfig) {
				t.Errorf("%s: %v, want bus.ErrInvalidConfig", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !strings.HasPrefix(u, tc.scheme) {
			t.Errorf("%s: URL %s, want %s…", tc.name, u, tc.scheme)
		}
		if tc.scheme == "https://" {
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.TLS == nil {
					t.Error("a request over the TLS listener has no TLS state (the session cookie would not be Secure)")
				}
			})}
			go srv.Serve(ln)
			pool := x509.NewCertPool()
			caPEM, _ := os.ReadFile(cert)
			pool.AppendCertsFromPEM(caPEM)
			c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			res, err := c.Get("https://127.0.0.1:" + port + "/")
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else {
				res.Body.Close()
			}
			srv.Close()
			continue
		}
		ln.Close()
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// (PEM files) and returns their paths.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	pk, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolstream console test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &pk.PublicKey, pk)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
