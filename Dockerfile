# Build the single binary with the project's own toolchain (Bun comes from npm), then run it on a
# slim base as a non-root user, with Litestream beside it and the data directory on a volume.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN groupadd --system app && useradd --system --gid app --home-dir /data app \
  && mkdir -p /data && chown app:app /data
COPY --from=build /app/dist/restaurant-ops /usr/local/bin/restaurant-ops
# Litestream, for LITESTREAM_REPLICA_URL: the binary the npm package ships, beside the service.
COPY --from=build /app/node_modules/@flydotio/litestream-linux-x64/litestream /usr/local/bin/litestream
USER app
ENV DATA_DIR=/data HOST=0.0.0.0 PORT=3000 LITESTREAM_BIN=/usr/local/bin/litestream
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3000"]
ENTRYPOINT ["/usr/local/bin/restaurant-ops"]
CMD ["serve"]
