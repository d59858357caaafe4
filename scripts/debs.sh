# debs.sh: fetching and unpacking Debian packages for the scripts that
# read real data (scripts/corpus.sh, scripts/silver.sh). Source it after
# defining DATA (the cache, ${PDC_DATA:-~/.cache/pdc-data}), die and log:
#
#   $DATA/debs/PKG_VERSION_all.deb   a downloaded package (drop one here by hand offline)
#   $DATA/tree/PKG/                  the unpacked package; tree/PKG/.version holds its version

# apt_update runs apt-get update if we may (root, or password-less sudo).
apt_update() {
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq >&2
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n apt-get update -qq >&2
	else
		return 1
	fi
}

# download_deb PKG saves PKG's .deb in $DATA/debs (unless one is there) and prints its path.
download_deb() {
	local pkg=$1 deb
	mkdir -p "$DATA/debs"
	deb=$(find "$DATA/debs" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
	if [ -n "$deb" ]; then
		echo "$deb"
		return
	fi
	command -v apt-get >/dev/null ||
		die "apt-get not found: install $pkg (or put its .deb in $DATA/debs) and set PDC_DATA"
	log "apt-get download $pkg"
	if ! (cd "$DATA/debs" && apt-get download "$pkg" >&2); then
		log "apt-get download $pkg failed; trying apt-get update first"
		apt_update || die "apt-get download $pkg failed and apt-get update needs root:" \
			"run 'sudo apt-get update' (or put $pkg's .deb in $DATA/debs) and retry"
		(cd "$DATA/debs" && apt-get download "$pkg" >&2) ||
			die "apt-get download $pkg failed: is $pkg in your apt sources (Debian bookworm has it)?"
	fi
	deb=$(find "$DATA/debs" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
	[ -n "$deb" ] || die "apt-get download $pkg left no ${pkg}_*.deb in $DATA/debs"
	echo "$deb"
}

# unpack PKG makes sure $DATA/tree/PKG holds the unpacked package and prints that directory.
# A package installed system-wide (apt-get install PKG) is used in place: tree/PKG/usr -> /usr.
unpack() {
	local pkg=$1 tree=$DATA/tree/$1 deb version
	if [ -f "$tree/.done" ]; then
		echo "$tree"
		return
	fi
	if [ -z "$(find "$DATA/debs" -maxdepth 1 -name "${pkg}_*.deb" 2>/dev/null)" ] &&
		[ "$(dpkg-query -W -f '${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ]; then
		version=$(dpkg-query -W -f '${Version}' "$pkg")
		log "using the installed $pkg $version from /usr"
		mkdir -p "$tree"
		ln -sfn /usr "$tree/usr"
		echo "$version" >"$tree/.version"
		touch "$tree/.done"
		echo "$tree"
		return
	fi
	deb=$(download_deb "$pkg") || exit 1
	command -v dpkg-deb >/dev/null ||
		die "dpkg-deb not found: unpack $deb into $tree yourself (ar x + tar x) and touch $tree/.done"
	log "unpacking $(basename "$deb") into $tree"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	dpkg-deb -x "$deb" "$tree.tmp" || die "dpkg-deb -x $deb failed"
	dpkg-deb -f "$deb" Version >"$tree.tmp/.version"
	touch "$tree.tmp/.done"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
	echo "$tree"
}
