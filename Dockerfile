# The durable-agent worker image: `npm run worker` (tsx worker.ts), configured by environment: Temporal's own
# (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a mounted temporal.toml with
# TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE), TEMPORAL_TASK_QUEUE, OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL, and
# for live streams on Redis DURABLE_AGENT_REDIS_URL and DURABLE_AGENT_STREAM_KEY (given at run time, never built in:
# .dockerignore keeps .env files out of the image).
# Debian, not Alpine: the Temporal worker's native core ships for glibc.
FROM node:24-bookworm-slim

WORKDIR /app

# Dependencies first, so code changes do not reinstall them. Dev dependencies are needed: the worker runs
# TypeScript through tsx, and Temporal bundles the workflows at startup.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY . .

ENV TEMPORAL_ADDRESS=temporal:7233
USER node
CMD ["npm", "run", "worker"]
