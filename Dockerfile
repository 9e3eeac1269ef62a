# docsd: one image with the server, the build workers and the doc tools.
#
#   docker build --build-arg VERSION=1.0.0 -t docsd .
#   docker run -p 8000:8000 -v docsd-data:/var/lib/docsd \
#     --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     --security-opt systempaths=unconfined --device /dev/net/tun \
#     -e DOCSD_PUBLIC_URL=https://docs.example.com -e DOCSD_SECRET_KEY=/run/secrets/docsd-key docsd
#
# docsd runs as the unprivileged user docsd and needs no capability (no
# --cap-add, no --privileged): builds run in a bubblewrap sandbox, and
# their steps that need the network (cloning, installing, build commands)
# in a network namespace of their own that pasta connects to the internet,
# never to the container's loopback, its addresses, link-local addresses
# (169.254.169.254) or private networks. Both are made in user namespaces
# docsd's user owns, which the container must allow:
#   --security-opt seccomp=unconfined    Docker's default seccomp profile
#       refuses clone/unshare/setns with new namespaces, and mount, to
#       processes without CAP_SYS_ADMIN (or: a profile allowing those);
#   --security-opt apparmor=unconfined   the docker-default AppArmor
#       profile forbids mount, which bubblewrap needs (hosts with AppArmor);
#   --security-opt systempaths=unconfined  Docker masks parts of /proc, and
#       the kernel refuses a new /proc (bubblewrap mounts one for the
#       sandbox's PID namespace) in a user namespace while it is masked;
#   --device /dev/net/tun                pasta's tap device (mode 0666 on
#       the host, as udev makes it).
# Without them the steps that need the network fail, naming what is
# missing, and docsd's log says so at start; it never falls back to the
# container's network unless DOCSD_BUILD_NETWORK=host asks for it (a
# warning at every start). The host's kernel must allow unprivileged user
# namespaces (see deploy/docsd.service for the sysctls and Ubuntu's
# AppArmor restriction).
#
# Not built on docsd's development machine (no Docker engine there): see
# docs/operations/docker-systemd.md.

# --- build: a static docsd binary ---------------------------------------
FROM golang:1.26-trixie AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/docsd ./cmd/docsd \
 && /out/docsd --version

# --- runtime: docsd, git, Python with Sphinx and MkDocs, bubblewrap, pasta ---
# Build isolation: bubblewrap (the sandbox), passt (pasta), iproute2 (ip:
# the namespace's routes), util-linux (nsenter, setpriv, prlimit).
FROM debian:trixie-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates git tini \
      python3 python3-venv python3-sphinx python3-sphinx-rtd-theme mkdocs \
      bubblewrap passt iproute2 util-linux \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /var/lib/docsd --create-home --shell /usr/sbin/nologin docsd \
 && chmod 0700 /var/lib/docsd
COPY --from=build /out/docsd /usr/local/bin/docsd
USER docsd
WORKDIR /var/lib/docsd
ENV DOCSD_DATA_DIR=/var/lib/docsd \
    DOCSD_ADDR=0.0.0.0:8000 \
    DOCSD_BUILD_PYTHON=/usr/bin/python3 \
    DOCSD_BUILD_NETWORK=auto \
    DOCSD_LOG_FORMAT=json
VOLUME ["/var/lib/docsd"]
# 8000: API, GraphQL, dashboard; 8001: the built docs (--docs-addr, an origin of their own)
EXPOSE 8000 8001
# Liveness; orchestrators should use GET /readyz for readiness.
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["tini", "--", "docsd"]
CMD ["serve"]
