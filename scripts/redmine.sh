#!/usr/bin/env bash
# Redmine from Debian (5.0.x, SQLite) for the tracker tests (docs/tracker.md). Idempotent.
#   redmine.sh install    the apt packages (~50 s the first time, nothing after)
#   redmine.sh template   install, then a migrated database with the default data, the REST API on and an
#                         API key for admin (~10 s once per package version); prints the template's directory,
#                         which holds redmine.db, secret_key.txt and api-key
# test/helpers/redmine.ts copies the template per test file and starts `rackup` (webrick) on loopback.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

install() {
  if ! dpkg -s redmine redmine-sqlite sqlite3 >/dev/null 2>&1; then
    echo "redmine.sh: installing redmine redmine-sqlite sqlite3" >&2
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends redmine redmine-sqlite sqlite3 >&2
  fi
}

template() {
  install
  local version dir tenant
  version=$(dpkg-query -W -f '${Version}' redmine)
  dir=${NEXUS_REDMINE_TEMPLATE:-/var/cache/nexus-redmine/template-$version}
  if [ -f "$dir/api-key" ]; then
    echo "$dir"
    return
  fi
  echo "redmine.sh: building the template database in $dir" >&2
  $SUDO rm -rf "$dir.tmp" && $SUDO mkdir -p "$dir.tmp/config" "$dir.tmp/log" "$dir.tmp/tmp" "$dir.tmp/files"
  $SUDO sh -c "printf 'production:\n  adapter: sqlite3\n  database: %s/redmine.db\n' '$dir.tmp' > '$dir.tmp/config/database.yml'"
  $SUDO sh -c "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > '$dir.tmp/config/secret_key.txt'"
  tenant="nexus-template-$$"
  $SUDO ln -sfn "$dir.tmp" "/var/lib/redmine/$tenant"
  # SCHEMA=/dev/null: db:migrate would otherwise write the package's db/schema.rb.
  (cd /usr/share/redmine && $SUDO env REDMINE_INSTANCE="$tenant" RAILS_ENV=production SCHEMA=/dev/null rake db:migrate >&2 &&
    $SUDO env REDMINE_INSTANCE="$tenant" RAILS_ENV=production REDMINE_LANG=en rake redmine:load_default_data >&2)
  $SUDO rm -f "/var/lib/redmine/$tenant"
  local key
  key=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
  $SUDO sqlite3 "$dir.tmp/redmine.db" "
    INSERT INTO settings(name,value,updated_on) VALUES('rest_api_enabled','1',datetime('now'));
    INSERT INTO tokens(user_id,action,value,created_on,updated_on) VALUES(1,'api','$key',datetime('now'),datetime('now'));
    UPDATE users SET must_change_passwd=0 WHERE id=1;"
  $SUDO cp "$dir.tmp/config/secret_key.txt" "$dir.tmp/secret_key.txt"
  $SUDO sh -c "printf '%s' '$key' > '$dir.tmp/api-key'"
  $SUDO rm -rf "$dir" && $SUDO mv "$dir.tmp" "$dir"
  echo "$dir"
}

case "${1:-}" in
  install) install ;;
  template) template ;;
  *)
    echo "usage: redmine.sh install|template" >&2
    exit 2
    ;;
esac
