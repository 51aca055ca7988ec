# deploy/prometheus.Dockerfile: Debian 12's Prometheus for deploy/compose.yaml, with
# deploy/prometheus.yml and deploy/alerts.yml. Built from the repository root like deploy/Dockerfile.
FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/prometheus.yml deploy/alerts.yml /etc/prometheus/
USER prometheus
VOLUME /var/lib/prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus", "--config.file=/etc/prometheus/prometheus.yml", \
            "--storage.tsdb.path=/var/lib/prometheus/metrics2", "--storage.tsdb.retention.time=30d"]
