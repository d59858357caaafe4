//go:build nomainextract

package htmltext

// MainAvailable tells whether this binary has ExtractMain: not in a build
// with -tags nomainextract (scripts/build.sh's bin/pdc, which hands
// --extract main to bin/pdc-extract).
const MainAvailable = false

// ExtractMain is not available in this build: it returns ErrNoMainExtract.
func ExtractMain(body []byte, contentType, pageURL string) (Result, error) {
	return Result{}, ErrNoMainExtract
}
