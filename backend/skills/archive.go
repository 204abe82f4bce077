package skills

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// extractor unpacks an archive into a folder through an os.Root, so no
// entry can write outside it, and counts what it writes: the unpacked size
// is bounded while extracting (a zip bomb stops at the limit, not after).
type extractor struct {
	root    *os.Root
	dir     string
	budget  int64 // bytes left
	files   int
	symlink []string // symlinks created, checked once all is written
}

func newExtractor(dir string) (*extractor, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &extractor{root: r, dir: dir, budget: MaxInstallBytes}, nil
}

func (x *extractor) close() { x.root.Close() }

// entryPath checks an archive member's name: relative, no "..", no
// backslashes or NUL, no drive letters. It returns the slash path.
func entryPath(name string) (string, error) {
	clean := strings.TrimPrefix(name, "./")
	if clean == "" || clean == "." {
		return "", nil
	}
	if strings.ContainsAny(clean, "\\\x00") || strings.HasPrefix(clean, "/") || (len(clean) > 1 && clean[1] == ':') {
		return "", fmt.Errorf("the archive entry %q is not a relative path; refusing the archive", name)
	}
	clean = strings.TrimSuffix(clean, "/")
	if !filepath.IsLocal(filepath.FromSlash(clean)) || !fs.ValidPath(path.Clean(clean)) {
		return "", fmt.Errorf("the archive entry %q leaves the skill's folder; refusing the archive", name)
	}
	return path.Clean(clean), nil
}

func (x *extractor) mkdir(p string) error {
	if p == "" {
		return nil
	}
	return x.root.MkdirAll(filepath.FromSlash(p), 0o755)
}

func (x *extractor) file(p string, mode fs.FileMode, r io.Reader) error {
	if x.files++; x.files > maxInstallFiles {
		return fmt.Errorf("the archive has more than %d files; refusing it", maxInstallFiles)
	}
	if err := x.mkdir(path.Dir(p)); err != nil && path.Dir(p) != "." {
		return err
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755 // scripts keep their executable bit, nothing else
	}
	f, err := x.root.OpenFile(filepath.FromSlash(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("unpack %s: %w", p, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, x.budget+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpack %s: %w", p, err)
	}
	if x.budget -= n; x.budget < 0 {
		return fmt.Errorf("the archive unpacks to more than %s; refusing it", humanBytes(MaxInstallBytes))
	}
	return nil
}

// link creates a symbolic link whose target must stay inside the folder.
func (x *extractor) link(p, target string) error {
	if target == "" || strings.HasPrefix(target, "/") || strings.ContainsAny(target, "\\\x00") {
		return fmt.Errorf("the archive's symbolic link %s points outside the skill (%q); refusing the archive", p, target)
	}
	resolved := path.Join(path.Dir(p), target)
	if !filepath.IsLocal(filepath.FromSlash(resolved)) {
		return fmt.Errorf("the archive's symbolic link %s points outside the skill (%q); refusing the archive", p, target)
	}
	if x.files++; x.files > maxInstallFiles {
		return fmt.Errorf("the archive has more than %d files; refusing it", maxInstallFiles)
	}
	if err := x.mkdir(path.Dir(p)); err != nil && path.Dir(p) != "." {
		return err
	}
	if err := x.root.Symlink(target, filepath.FromSlash(p)); err != nil {
		return fmt.Errorf("unpack %s: %w", p, err)
	}
	x.symlink = append(x.symlink, p)
	return nil
}

// checkLinks resolves every symlink made, now that the whole tree exists:
// a chain of links that are each inside on their own can still lead out.
func (x *extractor) checkLinks() error {
	base, err := filepath.EvalSymlinks(x.dir)
	if err != nil {
		return err
	}
	for _, p := range x.symlink {
		if err := checkLinkInside(base, filepath.Join(x.dir, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	return nil
}

func checkLinkInside(base, p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("the symbolic link %s does not resolve inside the skill (%v); refusing it", filepath.Base(p), err)
	}
	if rel, err := filepath.Rel(base, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("the symbolic link %s points outside the skill; refusing it", filepath.Base(p))
	}
	return nil
}

// extractZip unpacks the zip file at name into dir.
func extractZip(name, dir string) error {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return fmt.Errorf("the download is not a valid zip archive: %v", err)
	}
	defer zr.Close()
	x, err := newExtractor(dir)
	if err != nil {
		return err
	}
	defer x.close()
	for _, f := range zr.File {
		p, err := entryPath(f.Name)
		if err != nil {
			return err
		}
		if p == "" {
			continue
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			err = x.mkdir(p)
		case mode&fs.ModeSymlink != 0:
			err = func() error {
				rc, err := f.Open()
				if err != nil {
					return err
				}
				defer rc.Close()
				target, err := io.ReadAll(io.LimitReader(rc, 4096))
				if err != nil {
					return err
				}
				return x.link(p, string(target))
			}()
		case mode.IsRegular():
			err = func() error {
				rc, err := f.Open()
				if err != nil {
					return fmt.Errorf("unpack %s: %w", p, err)
				}
				defer rc.Close()
				return x.file(p, mode, rc)
			}()
		default:
			err = fmt.Errorf("the archive entry %s is a %v, not a file or folder; refusing the archive", p, mode.Type())
		}
		if err != nil {
			return err
		}
	}
	return x.checkLinks()
}

// extractTarGz unpacks the gzipped tar file at name into dir.
func extractTarGz(name, dir string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("the download is not a valid .tar.gz archive: %v", err)
	}
	defer gz.Close()
	x, err := newExtractor(dir)
	if err != nil {
		return err
	}
	defer x.close()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("the download is not a valid .tar.gz archive: %v", err)
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue // metadata (pax_global_header from git archive)
		}
		p, err := entryPath(h.Name)
		if err != nil {
			return err
		}
		if p == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = x.mkdir(p)
		case tar.TypeReg:
			err = x.file(p, h.FileInfo().Mode(), tr)
		case tar.TypeSymlink:
			err = x.link(p, h.Linkname)
		case tar.TypeLink:
			err = fmt.Errorf("the archive entry %s is a hard link; refusing the archive", p)
		default:
			err = fmt.Errorf("the archive entry %s is not a file, folder or symbolic link; refusing the archive", p)
		}
		if err != nil {
			return err
		}
	}
	return x.checkLinks()
}

// checkTree enforces the install limits on a tree not made by an extractor
// (a git clone): size, file count, no symlink leading out, no special
// files.
func checkTree(dir string) error {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	var total int64
	files := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if files++; files > maxInstallFiles {
			return fmt.Errorf("the skill has more than %d files; refusing it", maxInstallFiles)
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return checkLinkInside(base, p)
		case d.IsDir():
			return nil
		case !t.IsRegular():
			return fmt.Errorf("%s is not a file, folder or symbolic link; refusing the skill", d.Name())
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if total += info.Size(); total > MaxInstallBytes {
			return fmt.Errorf("the skill is larger than %s; refusing it", humanBytes(MaxInstallBytes))
		}
		return nil
	})
}
