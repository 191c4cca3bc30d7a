#!/bin/bash
# osharm desktop: upstream's web addresses inside the sandbox (sourced by sandbox-init.sh, before
# anything of the agent's runs). OSHARM_SITE_HOSTS (space-separated) resolve to 127.0.0.1 through
# the sandbox's own /etc/hosts (the provider binds it); this script
#   1. creates a certificate authority for this desktop only (EC P-256, name-constrained to those
#      hosts), signs one server certificate for them, and deletes the authority's private key right
#      after signing (it never exists once the desktop is up);
#   2. makes the desktop's browsers trust that authority: Chromium's NSS database (~/.pki/nssdb);
#   3. starts site_tls.py: HTTPS on 127.0.0.1:443, each connection forwarded as plain HTTP to
#      127.0.0.1:$OSHARM_SITE_BACKEND (the injection's capture listener serves the page there).
# Failures are said on stderr (the provider's log) and in $XDG_RUNTIME_DIR/osharm/site-tls.state;
# the desktop starts anyway.
osharm_site_tls() {
  local hosts="${OSHARM_SITE_HOSTS:-}" dir="$XDG_RUNTIME_DIR/osharm/tls" state="$XDG_RUNTIME_DIR/osharm/site-tls.state"
  [ -n "$hosts" ] || { echo "off: no site hosts" >"$state"; return 0; }
  if ! command -v openssl >/dev/null || ! command -v certutil >/dev/null; then
    echo "osharm: https://${hosts%% *}/ is not served: openssl and certutil (libnss3-tools) are needed" >&2
    echo "failed: openssl or certutil missing" >"$state"
    return 0
  fi
  mkdir -p -m 700 "$dir"
  local san="" constraints="" host
  for host in $hosts; do
    san="${san:+$san,}DNS:$host"
    constraints="${constraints:+$constraints,}permitted;DNS:$host"
  done
  if ! (
    set -e
    cd "$dir"
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
      -keyout ca.key -out ca.pem -subj "/O=osharm/CN=osharm desktop CA $(date -u +%Y%m%dT%H%M%S) $RANDOM" \
      -addext "basicConstraints=critical,CA:TRUE,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -addext "nameConstraints=critical,$constraints" 2>/dev/null
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout site.key \
      -subj "/CN=${hosts%% *}" -out site.csr 2>/dev/null
    printf 'subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' \
      "$san" >site.ext
    openssl x509 -req -in site.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
      -extfile site.ext -out site.pem 2>/dev/null
    rm -f ca.key ca.srl site.csr site.ext
    mkdir -p -m 700 "$HOME/.pki/nssdb"
    certutil -N -d "sql:$HOME/.pki/nssdb" --empty-password
    certutil -A -d "sql:$HOME/.pki/nssdb" -n "osharm desktop CA" -t "C,," -i ca.pem
  ); then
    rm -f "$dir/ca.key"
    echo "osharm: https://${hosts%% *}/ is not served: the desktop's certificate authority could not be made" >&2
    echo "failed: certificate authority" >"$state"
    return 0
  fi
  local python=/opt/osharm/python3
  [ -x "$python" ] || python=/usr/bin/python3
  # The server reads the key and deletes the file; it binds 443 once the provider has lowered the
  # namespace's unprivileged port start (it retries for a while) and records the outcome in $state.
  "$python" "$OSHARM_GUEST/guest/site_tls.py" --cert "$dir/site.pem" --key "$dir/site.key" \
    --port 443 --backend "${OSHARM_SITE_BACKEND:-18080}" --state "$state" \
    >"$XDG_RUNTIME_DIR/osharm/site-tls.log" 2>&1 </dev/null &
}
