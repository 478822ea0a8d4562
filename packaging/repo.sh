#!/bin/bash
# Signed package repositories of slurm-spank-ebpf (and ebpf-exporter), as a
# site serves them: an apt repository (apt-ftparchive; InRelease and
# Release.gpg signed) and a dnf repository (rpmsign'd packages,
# createrepo_c, repodata/repomd.xml.asc). `make repo` runs it.
#
#   packaging/repo.sh --key KEY --out DIR [--apt SUITE=DEBDIR]... [--rpm NAME=RPMDIR]...
#
#   --key KEY        the signing key: a file holding the secret key
#                    (imported into a temporary keyring), or a key ID or
#                    fingerprint in the caller's keyring ($GNUPGHOME)
#   --out DIR        the repository's root; made or updated in place
#   --apt SUITE=DIR  every .deb in DIR (not -dbgsym) into the apt
#                    suite SUITE (a Debian codename: the plugin's packages
#                    are built per Slurm release, hence per suite)
#   --rpm NAME=DIR   every .rpm in DIR (not .src.rpm) into the dnf
#                    repository DIR/rpm/NAME (el8, el9, ...)
#
# Layout (what sources.list and .repo files name):
#   DIR/slurm-spank-ebpf.gpg          the public key, binary (signed-by=)
#   DIR/slurm-spank-ebpf.asc          the same, armoured (rpm --import, gpgkey=)
#   DIR/apt/dists/SUITE/{InRelease,Release,Release.gpg}
#   DIR/apt/dists/SUITE/main/binary-ARCH/Packages{,.xz}
#   DIR/apt/pool/SUITE/*.deb
#   DIR/rpm/NAME/*.rpm, DIR/rpm/NAME/repodata/{repomd.xml,repomd.xml.asc,...}
# Prints one line per repository made. Errors: a message on stderr, exit 1.
set -u -o pipefail

repo_fatal() {
	echo "repo.sh: error: $*" >&2
	exit 1
}

KEY='' OUT='' APTS=() RPMS=()
while [ $# -gt 0 ]; do
	case $1 in
	--key) KEY=${2:-}; shift 2 ;;
	--out) OUT=${2:-}; shift 2 ;;
	--apt) APTS+=("${2:-}"); shift 2 ;;
	--rpm) RPMS+=("${2:-}"); shift 2 ;;
	*) repo_fatal "unknown argument \"$1\" (see the header of $0)" ;;
	esac
done
[ -n "$KEY" ] || repo_fatal "no --key (a secret key file or a key ID in your keyring): the repositories are signed or not made"
[ -n "$OUT" ] || repo_fatal "no --out DIR"
[ ${#APTS[@]} -gt 0 ] || [ ${#RPMS[@]} -gt 0 ] || repo_fatal "no --apt or --rpm: nothing to publish"
need() {
	command -v "$1" >/dev/null 2>&1 || repo_fatal "command $1 not found (Debian package $2)"
}
need gpg gnupg
[ ${#APTS[@]} -eq 0 ] || { need apt-ftparchive apt-utils; need dpkg-deb dpkg; }
[ ${#RPMS[@]} -eq 0 ] || { need rpmsign rpm; need createrepo_c createrepo-c; }

tmp=$(mktemp -d) || repo_fatal "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# The key: a file is imported into a keyring of this run only (the
# caller's is never written); an ID is used from the caller's keyring.
if [ -f "$KEY" ]; then
	export GNUPGHOME=$tmp/gnupg
	mkdir -m 0700 "$GNUPGHOME"
	gpg --batch --quiet --import "$KEY" 2>"$tmp/gpg.log" ||
		repo_fatal "gpg --import \"$KEY\" failed: $(tail -n 3 "$tmp/gpg.log")"
	FPR=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "$FPR" ] || repo_fatal "\"$KEY\" holds no secret key"
else
	FPR=$(gpg --batch --with-colons --list-secret-keys -- "$KEY" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "$FPR" ] || repo_fatal "no secret key \"$KEY\" in the keyring (${GNUPGHOME:-~/.gnupg}), and no such file"
fi
gpg_sign() {
	gpg --batch --yes --pinentry-mode loopback --passphrase '' --local-user "$FPR" "$@" 2>>"$tmp/gpg.log"
}
mkdir -p "$OUT" || repo_fatal "cannot create \"$OUT\""
OUT=$(cd "$OUT" && pwd)
gpg --batch --export "$FPR" >"$OUT/slurm-spank-ebpf.gpg" &&
	gpg --batch --armor --export "$FPR" >"$OUT/slurm-spank-ebpf.asc" ||
	repo_fatal "cannot export the public key"

# --- apt ---------------------------------------------------------------------
for a in "${APTS[@]}"; do
	suite=${a%%=*} dir=${a#*=}
	case $suite in "" | *[!a-z0-9-]*) repo_fatal "--apt \"$a\": want SUITE=DIR, SUITE a codename" ;; esac
	[ -d "$dir" ] || repo_fatal "--apt $suite: \"$dir\" is not a directory"
	debs=$(find "$dir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' | sort)
	[ -n "$debs" ] || repo_fatal "--apt $suite: no .deb in \"$dir\""
	pool=pool/$suite
	mkdir -p "$OUT/apt/$pool"
	# The suite is rebuilt from what is given: a package not given is gone.
	find "$OUT/apt/$pool" -maxdepth 1 -name '*.deb' -delete
	for d in $debs; do
		cp "$d" "$OUT/apt/$pool/" || repo_fatal "cannot copy \"$d\""
	done
	arches=$(for d in "$OUT/apt/$pool"/*.deb; do dpkg-deb -f "$d" Architecture; done | sort -u | grep -vx all | tr '\n' ' ')
	[ -n "$arches" ] || arches="amd64 "
	rm -rf "$OUT/apt/dists/$suite"
	for arch in $arches; do
		bd=dists/$suite/main/binary-$arch
		mkdir -p "$OUT/apt/$bd"
		# Arch: all packages are listed in every architecture's index.
		(cd "$OUT/apt" && apt-ftparchive --arch "$arch" packages "$pool") >"$OUT/apt/$bd/Packages" 2>"$tmp/ftp.log" ||
			repo_fatal "apt-ftparchive packages $pool failed: $(tail -n 3 "$tmp/ftp.log")"
		xz -k -f "$OUT/apt/$bd/Packages"
	done
	(cd "$OUT/apt/dists/$suite" && apt-ftparchive \
		-o APT::FTPArchive::Release::Origin=slurm-spank-ebpf \
		-o APT::FTPArchive::Release::Label=slurm-spank-ebpf \
		-o APT::FTPArchive::Release::Suite="$suite" \
		-o APT::FTPArchive::Release::Codename="$suite" \
		-o APT::FTPArchive::Release::Components=main \
		-o APT::FTPArchive::Release::Architectures="${arches% }" \
		release . >"$tmp/Release") 2>"$tmp/ftp.log" ||
		repo_fatal "apt-ftparchive release $suite failed: $(tail -n 3 "$tmp/ftp.log")"
	mv "$tmp/Release" "$OUT/apt/dists/$suite/Release"
	gpg_sign --clearsign -o "$OUT/apt/dists/$suite/InRelease" "$OUT/apt/dists/$suite/Release" &&
		gpg_sign --detach-sign --armor -o "$OUT/apt/dists/$suite/Release.gpg" "$OUT/apt/dists/$suite/Release" ||
		repo_fatal "signing $suite's Release failed: $(tail -n 3 "$tmp/gpg.log")"
	echo "apt: $OUT/apt suite $suite main (${arches% }): $(echo "$debs" | wc -l) packages, signed by $FPR"
done

# --- dnf ---------------------------------------------------------------------
for r in "${RPMS[@]}"; do
	name=${r%%=*} dir=${r#*=}
	case $name in "" | *[!a-z0-9._-]*) repo_fatal "--rpm \"$r\": want NAME=DIR" ;; esac
	[ -d "$dir" ] || repo_fatal "--rpm $name: \"$dir\" is not a directory"
	rpms=$(find "$dir" -name '*.rpm' ! -name '*.src.rpm' | sort)
	[ -n "$rpms" ] || repo_fatal "--rpm $name: no .rpm in \"$dir\""
	rd=$OUT/rpm/$name
	rm -rf "$rd"
	mkdir -p "$rd"
	for f in $rpms; do
		cp "$f" "$rd/" || repo_fatal "cannot copy \"$f\""
	done
	# rpmsign asks gpg through its own command line: this gpg (Debian's
	# rpm looks for gpg2), the key by fingerprint, no passphrase prompt
	# (a key for automation has none).
	rpmsign --addsign --define "_gpg_name $FPR" --define "__gpg $(command -v gpg)" \
		--define "__gpg_sign_cmd %{__gpg} gpg --batch --no-verbose --no-armor --pinentry-mode loopback --passphrase '' --no-secmem-warning -u \"%{_gpg_name}\" -sbo %{__signature_filename} %{__plaintext_filename}" \
		"$rd"/*.rpm >"$tmp/rpmsign.log" 2>&1 ||
		repo_fatal "rpmsign failed: $(tail -n 3 "$tmp/rpmsign.log")"
	createrepo_c --quiet --general-compress-type=gz "$rd" >"$tmp/createrepo.log" 2>&1 ||
		repo_fatal "createrepo_c \"$rd\" failed: $(tail -n 3 "$tmp/createrepo.log")"
	gpg_sign --detach-sign --armor -o "$rd/repodata/repomd.xml.asc" "$rd/repodata/repomd.xml" ||
		repo_fatal "signing $rd/repodata/repomd.xml failed: $(tail -n 3 "$tmp/gpg.log")"
	echo "dnf: $rd: $(echo "$rpms" | wc -l) packages, signed by $FPR"
done
