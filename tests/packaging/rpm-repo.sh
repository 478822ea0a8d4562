#!/bin/bash
# The signed dnf repository packaging/repo.sh makes (`make repo`) of the
# RPMs `make rpm` builds, checked as far as this (Debian) machine can
# without an RPM-based root: every package's signature with `rpm -K`
# against the repository's key in a scratch rpm database (and refused
# without the key, or once a byte changed), repomd.xml's detached signature
# with gpg (and refused once the file changed), createrepo_c's metadata
# (repomd.xml's checksums of its files, the packages primary.xml lists),
# and the dependencies as dnf reads them from there: Slurm's packages by
# the names EPEL (slurm, slurm-slurmd) or OpenHPC (slurm-ohpc,
# slurm-slurmd-ohpc) give them on EL 8 and 9, the exporter by its virtual
# name. What dnf itself does with it on EL stays on paper
# (docs/OPERATING.md, "Package repositories").
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"

need_cmd rpmbuild rpm gpg createrepo_c python3 flock
[ -f "$top_builddir/Makefile" ] || missing "a configured build tree"
src=${srcdir:-.}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

pk_ok "make rpm RPMBUILD_FLAGS=--nodeps" pkg_build rpm RPMBUILD_FLAGS=--nodeps ||
	{ diag "nothing to check without packages"; done_testing; }
# A copy: the repository signs its own copies, never rpm.sh's.
mkdir -p "$tmp/rpms"
with_pkg_lock sh -c 'cp "$1"/rpm/RPMS/*/*.rpm "$2"/' sh "$PKG_DIR" "$tmp/rpms"
is "four packages to publish" "$(ls "$tmp/rpms" | sed 's/-[0-9].*//' | sort | tr '\n' ' ')" \
	"slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-probes slurm-spank-ebpf-submit "

# A throwaway key (RSA: EL 8's rpm verifies no EdDSA signature).
export GNUPGHOME=$tmp/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'slurm-spank-ebpf test repository <repo@invalid>' \
	rsa3072 sign never >"$tmp/gpg.log" 2>&1 &&
	gpg --batch --armor --pinentry-mode loopback --passphrase '' --export-secret-keys >"$tmp/repo.key" 2>>"$tmp/gpg.log" ||
	bail "could not make a throwaway key: $(tail -n 3 "$tmp/gpg.log")"
# repo.sh imports the key file into a keyring of its own: this one only
# checks from here on.
pk_ok "packaging/repo.sh --key FILE --rpm el9=DIR" \
	"$src/packaging/repo.sh" --key "$tmp/repo.key" --out "$tmp/repo" --rpm "el9=$tmp/rpms"
R=$tmp/repo/rpm/el9
ok_if "the public key beside it, armoured, for rpm --import and gpgkey=" \
	grep -q 'BEGIN PGP PUBLIC KEY BLOCK' "$tmp/repo/slurm-spank-ebpf.asc"

# --- signatures ------------------------------------------------------------
db=$tmp/rpmdb
mkdir -p "$db"
k() { rpm --dbpath "$db" -K "$@" 2>&1; }
out=$(k "$R"/*.rpm)
like "rpm -K without the key: NOKEY (the check reads signatures)" "$out" 'NOKEY|SIGNATURES NOT OK|signatures NOT OK'
ok_if "rpm --import the repository's key" rpm --dbpath "$db" --import "$tmp/repo/slurm-spank-ebpf.asc"
out=$(k "$R"/*.rpm)
is "rpm -K: every package's digests and signature OK" \
	"$(printf '%s\n' "$out" | grep -c ': digests signatures OK$')" "$(ls "$R"/*.rpm | wc -l)"
cp "$(ls "$R"/*.rpm | head -n 1)" "$tmp/tampered.rpm"
printf 'X' | dd of="$tmp/tampered.rpm" bs=1 seek=$(($(stat -c %s "$tmp/tampered.rpm") - 100)) conv=notrunc 2>/dev/null
like "rpm -K refuses a package with one byte changed" "$(k "$tmp/tampered.rpm")" 'NOT OK'
unlike "rpm -K: the packages rpm.sh built are not signed (the signature is the repository's)" \
	"$(k "$tmp/rpms"/*.rpm)" 'signatures OK$'

# --- repomd.xml and its signature --------------------------------------------
verify=$tmp/verify
mkdir -m 0700 "$verify"
GNUPGHOME=$verify gpg --batch --quiet --import "$tmp/repo/slurm-spank-ebpf.asc" 2>/dev/null
v() { GNUPGHOME=$verify gpg --batch --status-fd 1 --verify "$1" "$2" 2>/dev/null | grep -oE '^\[GNUPG:\] (GOOD|BAD)SIG'; }
is "repomd.xml.asc verifies with the repository's key" "$(v "$R/repodata/repomd.xml.asc" "$R/repodata/repomd.xml")" \
	"[GNUPG:] GOODSIG"
sed 's/<revision>/<revision>1/' "$R/repodata/repomd.xml" >"$tmp/repomd.xml"
is "... and not once repomd.xml changed" "$(v "$R/repodata/repomd.xml.asc" "$tmp/repomd.xml")" "[GNUPG:] BADSIG"

# --- createrepo_c's metadata, and the dependencies dnf reads there ----------
meta=$(python3 - "$R" <<'EOF'
import gzip, hashlib, os, sys, xml.etree.ElementTree as ET
root = sys.argv[1]
ns = {"r": "http://linux.duke.edu/metadata/repo", "c": "http://linux.duke.edu/metadata/common",
      "rpm": "http://linux.duke.edu/metadata/rpm"}
md = ET.parse(os.path.join(root, "repodata/repomd.xml")).getroot()
primary = None
for d in md.findall("r:data", ns):
    href = d.find("r:location", ns).get("href")
    want = d.find("r:checksum", ns).text
    got = hashlib.new(d.find("r:checksum", ns).get("type"), open(os.path.join(root, href), "rb").read()).hexdigest()
    print("data %s checksum %s" % (d.get("type"), "ok" if got == want else "MISMATCH"))
    if d.get("type") == "primary":
        primary = os.path.join(root, href)
p = ET.fromstring(gzip.open(primary).read())
for pkg in sorted(p.findall("c:package", ns), key=lambda e: e.find("c:name", ns).text):
    name = pkg.find("c:name", ns).text
    fmt = pkg.find("c:format", ns)
    reqs = sorted(e.get("name") for e in fmt.findall("rpm:requires/rpm:entry", ns)
                  if not e.get("name").startswith(("rpmlib(", "lib", "rtld(", "config(", "/")))
    print("package %s requires %s" % (name, " ; ".join(reqs)))
EOF
)
diag "$(printf '%s\n' "$meta" | tr '\n' '|')"
ok_if "repomd.xml lists at least primary, filelists and other" \
	test "$(printf '%s\n' "$meta" | grep -c '^data ')" -ge 3
unlike "... and its checksums match the files" "$(printf '%s\n' "$meta" | grep '^data ')" 'MISMATCH'
like "... primary's among them" "$meta" '^data primary checksum ok$'
is "primary.xml lists the four packages" "$(printf '%s\n' "$meta" | sed -n 's/^package \([^ ]*\) .*/\1/p' | tr '\n' ' ')" \
	"slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-probes slurm-spank-ebpf-submit "
rich() { echo "(($1 >= $SLURM_MAJMIN with $1 < $SLURM_NEXT) or ($1-ohpc >= $SLURM_MAJMIN with $1-ohpc < $SLURM_NEXT))"; }
like "base requires Slurm $SLURM_MAJMIN as EPEL (slurm) or OpenHPC (slurm-ohpc) names it" "$meta" \
	"^package slurm-spank-ebpf requires .*$(rich slurm | sed 's/[().]/\\&/g')"
like "compute requires slurmd as EPEL (slurm-slurmd) or OpenHPC (slurm-slurmd-ohpc) names it" "$meta" \
	"^package slurm-spank-ebpf-compute requires .*$(rich slurm-slurmd | sed 's/[().]/\\&/g')"
like "probes requires ebpf-exporter-binary (ebpf-exporter's, or a site's own)" "$meta" \
	'^package slurm-spank-ebpf-probes requires ebpf-exporter-binary ; slurm-spank-ebpf$'
done_testing
