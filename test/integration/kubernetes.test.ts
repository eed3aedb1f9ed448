/**
 * deploy/kubernetes/, checked without kubectl or a cluster: each overlay assembled as kustomize
 * would (test/support/kustomize.ts; compared with `kubectl kustomize` where kubectl is installed),
 * every object validated against the Kubernetes v1.36 and prometheus-operator schemas
 * (test/support/kubernetes-schema.ts), then the properties the collector needs: one writer for a
 * SQLite file, the roles, probes on the right paths, a grace period above the shutdown deadline, the
 * image's user and paths, secrets from files, the scrape and the alert rules of deploy/prometheus/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ALERTS, PROMETHEUS_RULE, prometheusRule } from '../../scripts/prometheus-rule.js';
import { loadConfig } from '../../src/config/index.js';
import { envSchema } from '../../src/config/load.js';
import { DEFAULT_READINESS_TIMEOUT_MS, type HttpServer, startHttpServer } from '../../src/metrics/index.js';
import { roles } from '../../src/queue/jobs.js';
import { createLogger } from '../../src/runtime/logger.js';
import { SHUTDOWN_MARGIN_MS } from '../../src/service/service.js';
import { schemaProblems } from '../support/kubernetes-schema.js';
import { type K8sObject, kustomize, podSpec } from '../support/kustomize.js';
import { hasBinary } from '../support/prometheus.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const overlays = ['single', 'scaled', 'postgres-only'] as const;
/** The overlays whose queue is on Redis (deploy/kubernetes/redis); postgres-only has none. */
const withRedis = ['single', 'scaled'] as const;
const built = Object.fromEntries(
  overlays.map((o) => [o, kustomize(join(root, 'deploy/kubernetes/overlays', o))]),
) as Record<(typeof overlays)[number], K8sObject[]>;

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const one = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};
/** The workloads running the collector (not Redis). */
const collectors = (objects: K8sObject[]) =>
  objects.filter(
    (o) =>
      (o.kind === 'StatefulSet' || o.kind === 'Deployment') &&
      o.spec.template.metadata.labels['app.kubernetes.io/name'] === 'glacier-collector',
  );
const container = (o: K8sObject) => {
  const containers = podSpec(o).containers as K8sObject[];
  expect(containers.map((c) => c.name)).toEqual(['collector']);
  return containers[0]!;
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** What the Dockerfile's runtime stage says: its user, its environment, its entry point. */
function dockerfileRuntime() {
  const text = read('Dockerfile');
  const runtime = text.slice(text.lastIndexOf('\nFROM '));
  const user = /^USER (\d+):(\d+)$/m.exec(runtime);
  const env = Object.fromEntries(
    [...runtime.matchAll(/^ENV ((?:[^\n]*\\\n)*[^\n]*)$/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((e) => [e[1]!, e[2]!]),
    ),
  );
  return { runtime, uid: Number(user?.[1]), gid: Number(user?.[2]), env };
}

describe('deploy/kubernetes: assembled as kustomize does', () => {
  it.skipIf(!hasBinary('kubectl'))('gives what `kubectl kustomize` gives, for each overlay', () => {
    const canonical = (objects: K8sObject[]) => objects.map((o) => JSON.stringify(sortKeys(o))).sort();
    for (const overlay of overlays) {
      const out = execFileSync('kubectl', ['kustomize', join(root, 'deploy/kubernetes/overlays', overlay)], {
        encoding: 'utf8',
      });
      const theirs = parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
      expect(canonical(built[overlay]), overlay).toEqual(canonical(theirs));
    }
  });

  it('every object of both overlays is valid for Kubernetes v1.36 and the prometheus-operator CRDs', () => {
    for (const overlay of overlays) {
      expect(built[overlay].length, overlay).toBeGreaterThan(8);
      expect(schemaProblems(built[overlay]), overlay).toEqual([]);
    }
  }, 60_000);

  it('the schema check refuses a misspelt field, a wrong type and an unknown kind', () => {
    const misspelt = structuredClone(collectors(built.single)[0]!);
    container(misspelt).readinesProbe = container(misspelt).readinessProbe;
    const mistyped = structuredClone(collectors(built.single)[0]!);
    container(mistyped).ports[0].containerPort = 'metrics';
    const unknown = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } };
    const problems = schemaProblems([misspelt, mistyped, unknown]);
    expect(problems.join('\n')).toMatch(/readinesProbe/);
    expect(problems.join('\n')).toMatch(/containerPort must be integer/);
    expect(problems.join('\n')).toMatch(/no schema here for v1 Pod/);
  }, 60_000);

  it('every object is in the overlay’s namespace and labelled part of glacier-collector', () => {
    for (const overlay of overlays) {
      for (const o of built[overlay]) {
        expect(o.metadata.namespace, `${overlay}: ${o.kind} ${o.metadata.name}`).toBe('glacier-collector');
        if (o.kind === 'ConfigMap') continue;
        expect(o.metadata.labels?.['app.kubernetes.io/part-of'], `${o.kind} ${o.metadata.name}`).toBe(
          'glacier-collector',
        );
      }
    }
  });
});

describe('deploy/kubernetes: the collector’s pods', () => {
  const runtime = dockerfileRuntime();

  it('single: one StatefulSet replica running every role, its SQLite database on its own claim', () => {
    const [sts, ...others] = collectors(built.single);
    expect(others).toEqual([]);
    expect(sts!.kind).toBe('StatefulSet');
    // Never two writers on one SQLite file: one replica; the StatefulSet recreates its pod only once
    // the old one is gone; the volume is the pod's own claim, mounted by one node at a time.
    expect(sts!.spec.replicas).toBe(1);
    expect(sts!.spec.podManagementPolicy).toBe('OrderedReady');
    const claims = sts!.spec.volumeClaimTemplates as K8sObject[];
    expect(claims.map((c) => c.metadata.name)).toEqual(['data']);
    expect(claims[0]!.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(sts!.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    expect(podSpec(sts!).volumes.map((v: { name: string }) => v.name)).not.toContain('data');
    expect(container(sts!).args).toEqual(['start']);
    // SQLite: the image's default DATABASE_PATH (./data/glacier.db, /app/data → /data) on the claim.
    expect(envSchema.shape.DATABASE_PATH.parse(undefined)).toBe('./data/glacier.db');
    expect(runtime.runtime).toContain('ln -s /data /app/data');
    expect(mountOf(sts!, 'data')).toEqual({ name: 'data', mountPath: '/data' });
    expect(JSON.stringify(container(sts!))).not.toMatch(/DATABASE_(URL|PATH)/);
  });

  for (const overlay of ['scaled', 'postgres-only'] as const) {
    it(`${overlay}: a scheduler Deployment of one, a worker Deployment of several, on PostgreSQL from a Secret's file`, () => {
      const objects = built[overlay];
      const scheduler = one(objects, 'Deployment', 'glacier-collector-scheduler');
      const worker = one(objects, 'Deployment', 'glacier-collector-worker');
      expect(collectors(objects)).toHaveLength(2);
      expect(byKind(objects, 'StatefulSet').map((o) => o.metadata.name)).toEqual(
        overlay === 'scaled' ? ['glacier-collector-redis'] : [],
      );
      expect(scheduler.spec.replicas).toBe(1);
      expect(worker.spec.replicas).toBeGreaterThanOrEqual(2);
      // The roles `start --role` has (src/queue/jobs.ts).
      expect(container(scheduler).args).toEqual(['start', '--role', 'scheduler']);
      expect(container(worker).args).toEqual(['start', '--role', 'worker']);
      expect(roles).toEqual(expect.arrayContaining(['scheduler', 'worker']));
      for (const d of [scheduler, worker]) {
        // DATABASE_URL (and QUEUE_URL) from the Secret's files: in no environment variable.
        const vars = Object.fromEntries(
          (container(d).env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
        );
        const volume = podSpec(d).volumes.find(
          (v: { secret?: { secretName: string } }) => v.secret?.secretName === 'glacier-collector-database',
        );
        expect(volume.secret.defaultMode).toBe(0o440);
        const mount = mountOf(d, volume.name);
        expect(mount.readOnly).toBe(true);
        expect(vars.DATABASE_URL_FILE).toBe(`${mount.mountPath}/DATABASE_URL`);
        if (overlay === 'postgres-only') expect(vars.QUEUE_URL_FILE).toBe(`${mount.mountPath}/QUEUE_URL`);
        else expect(vars.QUEUE_URL_FILE).toBeUndefined();
        expect(JSON.stringify(container(d).envFrom)).not.toContain('secretRef');
        expect(podSpec(d).volumes.find((v: { name: string }) => v.name === 'data').emptyDir).toBeDefined();
      }
    });
  }

  it('postgres-only: no Redis at all, and the configuration it gives loads with the queue on PostgreSQL', () => {
    const objects = built['postgres-only'];
    expect(objects.filter((o) => /redis/i.test(o.metadata.name))).toEqual([]);
    for (const w of collectors(objects)) expect(JSON.stringify(container(w))).not.toMatch(/REDIS_|redis/i);
    const env = one(objects, 'ConfigMap', configMapName(objects, 'glacier-collector-env'));
    // The Secret's files, as the pod would read them.
    const dir = mkdtempSync(join(tmpdir(), 'glacier-k8s-urls-'));
    try {
      const url = 'postgres://collector:secret@db.example.com:5432/glacier';
      writeFileSync(join(dir, 'DATABASE_URL'), `${url}\n`);
      writeFileSync(join(dir, 'QUEUE_URL'), `${url}\n`);
      const worker = one(objects, 'Deployment', 'glacier-collector-worker');
      const vars = Object.fromEntries(
        (container(worker).env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
      );
      const config = loadConfig({
        env: {
          ...env.data,
          DATABASE_URL_FILE: join(dir, posix.basename(vars.DATABASE_URL_FILE!)),
          QUEUE_URL_FILE: join(dir, posix.basename(vars.QUEUE_URL_FILE!)),
        },
        file: parse(read('glacier-collector.example.yaml')),
      });
      expect(config.database.kind).toBe('postgres');
      expect(config.queue).toMatchObject({ kind: 'postgres', setting: 'QUEUE_URL' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('scaled: the PodDisruptionBudget covers the workers only, and lets unready ones be evicted', () => {
    const [pdb, ...others] = byKind(built.scaled, 'PodDisruptionBudget');
    expect(others).toEqual([]);
    const worker = one(built.scaled, 'Deployment', 'glacier-collector-worker');
    const scheduler = one(built.scaled, 'Deployment', 'glacier-collector-scheduler');
    const selector = pdb!.spec.selector.matchLabels;
    expect(matches(selector, worker.spec.template.metadata.labels)).toBe(true);
    expect(matches(selector, scheduler.spec.template.metadata.labels)).toBe(false);
    expect(pdb!.spec.maxUnavailable).toBe(1);
    expect(pdb!.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });

  for (const overlay of overlays) {
    describe(overlay, () => {
      const objects = built[overlay];
      const config = one(objects, 'ConfigMap', configMapName(objects, 'glacier-collector-config'));
      const env = one(objects, 'ConfigMap', configMapName(objects, 'glacier-collector-env'));

      it('probes: startup and liveness on /healthz, readiness on /readyz, on the metrics port', () => {
        for (const w of collectors(objects)) {
          const c = container(w);
          const port = c.ports.find((p: { name: string }) => p.name === 'metrics');
          expect(port.containerPort).toBe(envSchema.shape.METRICS_PORT.parse(undefined));
          expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
          expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
          expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
          // /readyz answers 503 once its checks take 5 s: the kubelet must wait longer than that.
          expect(c.readinessProbe.timeoutSeconds * 1000).toBeGreaterThan(DEFAULT_READINESS_TIMEOUT_MS);
          // The server listens once migrations are applied: 10 minutes before the kubelet gives up.
          expect(c.startupProbe.periodSeconds * c.startupProbe.failureThreshold).toBeGreaterThanOrEqual(600);
          // A minute of a process that does not answer before it is restarted.
          expect(c.livenessProbe.periodSeconds * c.livenessProbe.failureThreshold).toBeGreaterThanOrEqual(60);
        }
      });

      it('the grace period outlasts the shutdown deadline of the config it runs', () => {
        const file = parse(config.data['glacier-collector.yaml']);
        const grace = loadConfig({ env: {}, file }).service.shutdownGrace;
        for (const w of collectors(objects)) {
          expect(podSpec(w).terminationGracePeriodSeconds * 1000, w.metadata.name).toBeGreaterThan(
            grace + SHUTDOWN_MARGIN_MS,
          );
        }
      });

      it('runs as the image’s non-root user, read-only root, no privilege, every capability dropped', () => {
        expect(runtime.uid).toBe(1000);
        for (const w of collectors(objects)) {
          const pod = podSpec(w);
          expect(pod.securityContext).toMatchObject({
            runAsNonRoot: true,
            runAsUser: runtime.uid,
            runAsGroup: runtime.gid,
            fsGroup: runtime.gid,
            seccompProfile: { type: 'RuntimeDefault' },
          });
          expect(container(w).securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          });
          expect(pod.automountServiceAccountToken).toBe(false);
          // Writable: /data (database, exports, their downloads) and /tmp (SQLite's temporary files);
          // everything else mounted is read-only.
          const writable = (container(w).volumeMounts as { mountPath: string; readOnly?: boolean }[])
            .filter((m) => !m.readOnly)
            .map((m) => m.mountPath)
            .sort();
          expect(writable, w.metadata.name).toEqual(['/data', '/tmp']);
        }
      });

      it('reads the config from the ConfigMap made from the example config, mounted where the image looks', () => {
        expect(config.data['glacier-collector.yaml']).toBe(read('glacier-collector.example.yaml'));
        const path = runtime.env.GLACIER_CONFIG!;
        expect(path).toBe('/config/glacier-collector.yaml');
        for (const w of collectors(objects)) {
          const volume = podSpec(w).volumes.find(
            (v: { configMap?: { name: string } }) => v.configMap?.name === config.metadata.name,
          );
          expect(mountOf(w, volume.name)).toEqual({
            name: volume.name,
            mountPath: posix.dirname(path),
            readOnly: true,
          });
          expect(container(w).envFrom).toContainEqual({ configMapRef: { name: env.metadata.name } });
        }
      });

      it('reads the API key from a Secret file, and writes no secret in any manifest', () => {
        for (const w of collectors(objects)) {
          const c = container(w);
          const vars = Object.fromEntries(
            (c.env as { name: string; value: string }[]).map((e) => [e.name, e]),
          );
          const keyFile = vars.GLACIER_API_KEY_FILE?.value;
          const volume = podSpec(w).volumes.find(
            (v: { secret?: { secretName: string } }) => v.secret?.secretName === 'glacier-collector-api-key',
          );
          expect(volume.secret.defaultMode).toBe(0o440);
          expect(mountOf(w, volume.name).readOnly).toBe(true);
          expect(keyFile).toBe(`${mountOf(w, volume.name).mountPath}/api-key`);
          // Every variable set is one the collector reads, and none holds a secret.
          for (const name of [...Object.keys(vars), ...Object.keys(env.data)]) {
            expect(Object.keys(envSchema.shape), name).toContain(name);
            expect(['GLACIER_API_KEY', 'DATABASE_URL'], name).not.toContain(name);
          }
          if (env.data.REDIS_URL !== undefined) expect(env.data.REDIS_URL).not.toMatch(/@/);
          // A Secret mounted as a directory, never by subPath: a rotated Secret (the web config's)
          // reaches the pod's files without a restart.
          for (const m of container(w).volumeMounts as { subPath?: string }[])
            expect(m.subPath).toBeUndefined();
        }
        expect(byKind(objects, 'Secret')).toEqual([]);
      });

      it('runs the image of this version', () => {
        const version = JSON.parse(read('package.json')).version;
        for (const w of collectors(objects)) expect(container(w).image).toBe(`glacier-collector:${version}`);
      });

      it('asks for the memory measured, with room for the soak’s level', () => {
        for (const w of collectors(objects)) {
          const { requests, limits } = container(w).resources;
          expect(mebibytes(requests.memory)).toBeGreaterThanOrEqual(MEASURED.idleRssMiB);
          expect(mebibytes(limits.memory)).toBeGreaterThanOrEqual(2 * MEASURED.soakRssMiB);
          expect(requests.cpu).toBeDefined();
          expect(limits.cpu).toBeUndefined();
        }
      });

      it('serves /metrics through the Service and the ServiceMonitor that kube-prometheus-stack selects', () => {
        const service = one(objects, 'Service', 'glacier-collector');
        const monitor = one(objects, 'ServiceMonitor', 'glacier-collector');
        // The Service's name is the job label of the scraped series, which the alert rules select.
        expect(read(ALERTS)).toContain('job="glacier-collector"');
        expect(service.spec.publishNotReadyAddresses).toBe(true);
        for (const w of collectors(objects)) {
          expect(matches(service.spec.selector, w.spec.template.metadata.labels), w.metadata.name).toBe(true);
        }
        for (const redis of byKind(objects, 'StatefulSet').filter((o) => !collectors(objects).includes(o))) {
          expect(matches(service.spec.selector, redis.spec.template.metadata.labels)).toBe(false);
        }
        expect(service.spec.ports).toEqual([
          { name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' },
        ]);
        expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels ?? {})).toBe(true);
        expect(monitor.spec.namespaceSelector).toBeUndefined(); // its own namespace
        expect(monitor.spec.endpoints).toEqual([
          expect.objectContaining({ port: 'metrics', path: '/metrics' }),
        ]);
        expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
        expect(one(objects, 'PrometheusRule', 'glacier-collector').metadata.labels?.release).toBe(
          'kube-prometheus-stack',
        );
      });

      // Where the overlay has Redis (postgres-only has none: its own test says so).
      if ((withRedis as readonly string[]).includes(overlay))
        it('runs Redis as docker-compose.yml does, with a password from a Secret and maxmemory below its limit, reachable by the collector only', () => {
          const compose = parse(read('docker-compose.yml')).services.redis;
          const redis = one(objects, 'StatefulSet', 'glacier-collector-redis');
          const c = (podSpec(redis).containers as K8sObject[])[0]!;
          expect(c.image).toBe(compose.image);
          expect(c.args.slice(0, compose.command.length)).toEqual(compose.command);
          expect(c.securityContext).toMatchObject({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
          });
          const arg = (name: string) => c.args[c.args.indexOf(name) + 1] as string;
          expect(arg('--maxmemory-policy')).toBe('noeviction');
          // Below the container's limit, with a quarter of it for the AOF rewrite's fork and buffers.
          const maxmemory = /^(\d+)mb$/.exec(arg('--maxmemory'));
          expect(maxmemory).not.toBeNull();
          expect(Number(maxmemory![1])).toBeLessThanOrEqual(0.75 * mebibytes(c.resources.limits.memory));
          // The password from the Secret, as an ACL file: in no command line and no manifest.
          const acl = arg('--aclfile');
          const auth = podSpec(redis).volumes.find(
            (v: { secret?: { secretName: string } }) => v.secret?.secretName === 'glacier-collector-redis',
          );
          expect(auth.secret.items.map((i: { key: string }) => i.key).sort()).toEqual([
            'password',
            'users.acl',
          ]);
          const authMount = (
            c.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[]
          ).find((m) => m.name === auth.name)!;
          expect(authMount.readOnly).toBe(true);
          expect(acl).toBe(`${authMount.mountPath}/users.acl`);
          expect(c.readinessProbe.exec.command.join(' ')).toContain('REDISCLI_AUTH="$(cat ');
          const service = one(objects, 'Service', 'glacier-collector-redis');
          expect(env.data.REDIS_URL).toBe(`redis://${service.metadata.name}:${service.spec.ports[0].port}`);
          // The collector's pods log in with the same Secret's password, from a file.
          for (const w of collectors(objects)) {
            const vars = Object.fromEntries(
              (container(w).env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
            );
            const volume = podSpec(w).volumes.find(
              (v: { secret?: { secretName: string } }) => v.secret?.secretName === 'glacier-collector-redis',
            );
            expect(volume.secret.items).toEqual([{ key: 'password', path: 'password' }]);
            expect(vars.REDIS_PASSWORD_FILE).toBe(`${mountOf(w, volume.name).mountPath}/password`);
          }
          const policy = one(objects, 'NetworkPolicy', 'glacier-collector-redis');
          expect(matches(policy.spec.podSelector.matchLabels, redis.spec.template.metadata.labels)).toBe(
            true,
          );
          expect(policy.spec.ingress).toEqual([
            {
              from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'glacier-collector' } } }],
              ports: [{ port: 'redis', protocol: 'TCP' }],
            },
          ]);
          const out = one(objects, 'NetworkPolicy', 'glacier-collector-to-redis');
          expect(out.spec.egress).toEqual([
            {
              to: [{ podSelector: { matchLabels: redis.spec.template.metadata.labels } }],
              ports: [{ port: 6379, protocol: 'TCP' }],
            },
          ]);
        });

      it('a NetworkPolicy for the collector: metrics from the monitoring namespace and its own pods; out to DNS, HTTPS and its backends only', () => {
        const policies = byKind(objects, 'NetworkPolicy').filter((p) =>
          collectors(objects).some((w) =>
            matches(p.spec.podSelector.matchLabels, w.spec.template.metadata.labels),
          ),
        );
        const main = one(objects, 'NetworkPolicy', 'glacier-collector');
        for (const w of collectors(objects))
          expect(matches(main.spec.podSelector.matchLabels, w.spec.template.metadata.labels)).toBe(true);
        expect(main.spec.policyTypes).toEqual(['Ingress', 'Egress']);
        // In: the metrics port only, from Prometheus's namespace and the collector's own pods.
        expect(policies.flatMap((p) => p.spec.ingress ?? [])).toEqual([
          {
            from: [
              { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
              { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'glacier-collector' } } },
            ],
            ports: [{ port: 'metrics', protocol: 'TCP' }],
          },
        ]);
        // Out: DNS, the API (HTTPS), and the database and Redis where the overlay has them.
        const ports = policies
          .flatMap((p) => p.spec.egress ?? [])
          .flatMap((e: { ports: { port: number; protocol: string }[] }) =>
            e.ports.map((x) => `${x.port}/${x.protocol}`),
          )
          .sort();
        const expected = ['53/TCP', '53/UDP', '443/TCP'];
        if (overlay !== 'single') expected.push('5432/TCP');
        if ((withRedis as readonly string[]).includes(overlay)) expected.push('6379/TCP');
        expect(ports).toEqual(expected.sort());
      });
    });
  }
});

describe('deploy/kubernetes: the web-config component', () => {
  // An operator's overlay: a shipped one, with the component.
  const dir = mkdtempSync(join(tmpdir(), 'glacier-k8s-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const withComponent = (overlay: string) => {
    const sub = join(dir, overlay);
    mkdirSync(sub, { recursive: true });
    const to = (path: string) => relative(sub, join(root, 'deploy/kubernetes', path));
    writeFileSync(
      join(sub, 'kustomization.yaml'),
      `resources:\n  - ${to(`overlays/${overlay}`)}\ncomponents:\n  - ${to('components/web-config')}\n`,
    );
    return sub;
  };

  for (const overlay of overlays) {
    it(`${overlay}: mounts the web config and the certificate, probes and scrapes over HTTPS with basic auth`, () => {
      const sub = withComponent(overlay);
      const objects = kustomize(sub);
      if (hasBinary('kubectl')) {
        const theirs = parseAllDocuments(
          execFileSync('kubectl', ['kustomize', sub], { encoding: 'utf8' }),
        ).map((d) => d.toJS() as K8sObject);
        expect(objects.map((o) => JSON.stringify(sortKeys(o))).sort()).toEqual(
          theirs.map((o) => JSON.stringify(sortKeys(o))).sort(),
        );
      }
      expect(schemaProblems(objects)).toEqual([]);
      for (const w of collectors(objects)) {
        const c = container(w);
        const path = (c.env as { name: string; value: string }[]).find(
          (e) => e.name === 'METRICS_WEB_CONFIG',
        )!.value;
        const mount = mountOf(w, 'web-config');
        expect(mount.readOnly).toBe(true);
        expect(posix.dirname(path)).toBe(mount.mountPath);
        const volume = podSpec(w).volumes.find((v: { name: string }) => v.name === 'web-config');
        const files = volume.projected.sources.flatMap((s: { secret: { items: { path: string }[] } }) =>
          s.secret.items.map((i) => i.path),
        );
        expect(files.sort()).toEqual([posix.basename(path), 'tls.crt', 'tls.key'].sort());
        for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
          expect(c[probe].httpGet.scheme, probe).toBe('HTTPS');
        }
      }
      const [endpoint] = one(objects, 'ServiceMonitor', 'glacier-collector').spec.endpoints;
      expect(endpoint).toMatchObject({
        port: 'metrics',
        path: '/metrics',
        scheme: 'https',
        tlsConfig: {
          serverName: 'glacier-collector',
          ca: { secret: { name: 'glacier-collector-tls', key: 'ca.crt' } },
        },
        basicAuth: {
          username: { name: 'glacier-collector-web-config', key: 'username' },
          password: { name: 'glacier-collector-web-config', key: 'password' },
        },
      });
    }, 60_000);
  }
});

describe('deploy/kubernetes: the alert rules', () => {
  it('the PrometheusRule is deploy/prometheus/alerts.yml, rule for rule', () => {
    const generated = prometheusRule(read(ALERTS));
    // An alert changed in one file only fails here: `npm run rules:kubernetes` writes the other.
    expect(
      read(PROMETHEUS_RULE),
      `${PROMETHEUS_RULE} differs from ${ALERTS}: run npm run rules:kubernetes`,
    ).toBe(generated);
    for (const overlay of overlays) {
      const rule = one(built[overlay], 'PrometheusRule', 'glacier-collector');
      expect(rule.spec.groups).toEqual(parse(read(ALERTS)).groups);
    }
  });
});

describe('the liveness probe’s path', () => {
  let server: HttpServer | undefined;
  afterAll(async () => server?.close());

  it('/healthz answers while every readiness check (Redis, the database) hangs', async () => {
    server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      log: createLogger({ level: 'silent' }),
      readiness: () => new Promise(() => undefined),
      readinessTimeoutMs: 60_000,
    });
    const res = await request(`${server.url}/healthz`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ status: 'ok' });
  });
});

/**
 * Memory of `start`, measured (docs/operations.md, "Kubernetes", gives the commands): idle, the
 * example config against the simulator, about 100 MiB after its first minute; the soak (every job
 * every few seconds) levels off at about 175 MiB at its highest.
 */
const MEASURED = { idleRssMiB: 100, soakRssMiB: 175 };

function mebibytes(quantity: string): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!m) throw new Error(`unexpected quantity ${quantity}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}

function mountOf(w: K8sObject, volume: string) {
  return (container(w).volumeMounts as { name: string }[]).find((m) => m.name === volume) as {
    name: string;
    mountPath: string;
    readOnly?: boolean;
  };
}

/** The generated name (with its hash) of a ConfigMap the manifests call `name`. */
function configMapName(objects: K8sObject[], name: string): string {
  const found = objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(`${name}-`));
  expect(found, name).toHaveLength(1);
  expect(found[0]!.metadata.name).toMatch(new RegExp(`^${name}-[a-z0-9]{10}$`));
  return found[0]!.metadata.name;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
