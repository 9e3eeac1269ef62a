# docsd: one image with the server, the build workers and the doc tools.
#
#   docker build --build-arg VERSION=1.0.0 -t docsd .
#   docker run -p 8000:8000 -v docsd-data:/var/lib/docsd \
#     -e DOCSD_PUBLIC_URL=https://docs.example.com -e DOCSD_SECRET_KEY=/run/secrets/docsd-key docsd
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
FROM debian:trixie-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates git tini \
      python3 python3-venv python3-sphinx python3-sphinx-rtd-theme mkdocs \
      bubblewrap passt \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /var/lib/docsd --create-home --shell /usr/sbin/nologin docsd \
 && chmod 0700 /var/lib/docsd
COPY --from=build /out/docsd /usr/local/bin/docsd
USER docsd
WORKDIR /var/lib/docsd
ENV DOCSD_DATA_DIR=/var/lib/docsd \
    DOCSD_ADDR=0.0.0.0:8000 \
    DOCSD_BUILD_PYTHON=/usr/bin/python3 \
    DOCSD_LOG_FORMAT=json
VOLUME ["/var/lib/docsd"]
# 8000: API, GraphQL, dashboard; 8001: the built docs (--docs-addr, an origin of their own)
EXPOSE 8000 8001
# Liveness; orchestrators should use GET /readyz for readiness.
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["tini", "--", "docsd"]
CMD ["serve"]
