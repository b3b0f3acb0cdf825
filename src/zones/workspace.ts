import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { NoshError } from '../errors.js';
import { maxFilesFor, type ResolvedConfig } from '../config.js';
import { DEFAULT_BLOCKED_PATTERNS, defaultPolicy, type ZonePolicy } from '../vfs/policy.js'; // not the whole Vfs: the main thread needs policies only
import { roleMayWrite, type Context } from './context.js';
import { validateId } from './ids.js';
import { QuotaLedger, type QuotaHandle } from './quota.js';

export type ZoneKind = 'root' | 'uploads' | 'storage' | 'documents' | 'output' | 'share' | 'group' | 'session' | 'mount';

/** A zone resolved for one call: where it is, what it allows, what quota it counts against. */
export interface Zone {
  name: string;
  kind: ZoneKind;
  /** Host folder (never shown). */
  root: string;
  policy: ZonePolicy;
  quota?: QuotaHandle;
  /** Versioned zones (documents, groups, and any zone whose policy says so) commit each change. */
  versioned: boolean;
  /** A versioned zone's git directory: outside every zone's folder, never shown (src/versioning). */
  gitdir?: string;
}

/** Resolves zone names for a context: ids validated, folders created on first use, policies and quotas applied. */
export type GroupProvider = (user: string) => string[] | Promise<string[]>;

const MB = 1024 * 1024;
export const BUILTIN_ZONES = ['uploads', 'storage', 'documents', 'output', 'share'] as const;

export class Workspace {
  readonly base: string;
  readonly quotas = new QuotaLedger();

  constructor(private readonly cfg: ResolvedConfig, private readonly groupProvider?: GroupProvider) {
    this.base = path.resolve(cfg.base ?? defaultHomeDir());
    for (const m of cfg.mounts) {
      if ((BUILTIN_ZONES as readonly string[]).includes(m.name) || m.name === 'root') {
        throw new NoshError('INVALID_ARGUMENT', `mount name '${m.name}' is a built-in zone name`, 'Choose another name for the mount.');
      }
      refuseHostFolder(`mount '${m.name}'`, m.path, this.base, true);
    }
    // The root zone is the operator's one folder: a system folder is refused; the base only when named too.
    if (cfg.root !== undefined) refuseHostFolder('root', cfg.root, this.base, cfg.base !== undefined);
  }

  /**
   * The zone a call names (or the default one) for this context. Synchronous except for a
   * group zone, whose membership may be asked of an asynchronous provider, and the first call
   * of a quota, whose folders are scanned; a bad name or id throws.
   */
  resolve(zoneName: string | undefined, ctx: Context): Zone | Promise<Zone> {
    const name = zoneName ?? (this.cfg.root !== undefined ? 'root' : 'storage');
    const zone = this.locate(name, ctx);
    return zone instanceof Promise ? zone.then((z) => withRole(this.versioning(z), ctx)) : withRole(this.versioning(zone), ctx);
  }

  /** Versioned or not, by the zone's policy (`versioned`: default true for documents and groups). */
  private versioned(z: Zone): boolean {
    switch (z.kind) {
      case 'documents': case 'group': return this.cfg.zones[z.kind]?.versioned ?? true;
      case 'storage': case 'share': case 'session': return this.cfg.zones[z.kind]?.versioned ?? false;
      case 'root': return this.cfg.policy.versioned ?? false;
      case 'mount': return !!this.cfg.mounts.find((m) => m.name === z.name)?.versioned;
      default: return false; // uploads (filled by import), output (a folder of storage)
    }
  }

  private readonly gitPolicies = new WeakMap<ZonePolicy, ZonePolicy>();

  /** A versioned zone gets its git directory and '.git' as a blocked name. */
  private versioning(z: Zone): Zone {
    if (!this.versioned(z)) return z.versioned ? { ...z, versioned: false } : z;
    let policy = this.gitPolicies.get(z.policy);
    if (!policy) {
      policy = freezePolicy({ ...z.policy, blockedPatterns: [...z.policy.blockedPatterns, '.git'], versioned: true });
      this.gitPolicies.set(z.policy, policy);
    }
    return { ...z, versioned: true, gitdir: this.gitdirOf(z), policy };
  }

  /**
   * Where a zone's git directory is: versions/ in the base, beside the zones and never inside
   * one (users/alice/Documents -> versions/users/alice/Documents.git). A root or mount folder
   * outside the base gets versions/root-<hash>.git or versions/mount-<name>.git.
   */
  gitdirOf(z: Pick<Zone, 'kind' | 'name' | 'root'>): string {
    const rel = path.relative(this.base, z.root);
    if (z.kind !== 'root' && z.kind !== 'mount' && rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return this.dir('versions', rel + '.git');
    if (z.kind === 'mount') return this.dir('versions', `mount-${z.name}.git`);
    return this.dir('versions', `root-${createHash('sha256').update(path.resolve(z.root)).digest('hex').slice(0, 16)}.git`);
  }

  /**
   * Zone policies depend on the configuration alone, which does not change for the life of
   * the Workspace: each is built once and frozen (a caller that needs a variant copies it).
   */
  private readonly policies = new Map<string, ZonePolicy>();

  private cachedPolicy(key: string, build: () => ZonePolicy): ZonePolicy {
    let p = this.policies.get(key);
    if (!p) {
      p = freezePolicy(build());
      this.policies.set(key, p);
    }
    return p;
  }

  private policyFor(kind: keyof ResolvedConfig['zones'], base: Partial<ZonePolicy> = {}): ZonePolicy {
    return this.cachedPolicy(kind, () =>
      defaultPolicy({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS, maxFileSize: this.cfg.limits.maxFileSize, ...base, ...overrides(this.cfg.zones[kind] ?? {}) }));
  }

  /** The policy of the 'root' zone (config.root, or an explicit library root). */
  rootPolicy(): ZonePolicy {
    return this.cachedPolicy('\0root', () =>
      defaultPolicy({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS, maxFileSize: this.cfg.limits.maxFileSize, ...overrides(this.cfg.policy) }));
  }

  userOf(ctx: Context): string {
    return validateId('user', ctx.user ?? this.cfg.companion?.user ?? this.cfg.defaultUser);
  }

  private userQuota(user: string): QuotaHandle | Promise<QuotaHandle> {
    return this.quotaOf(`user:${user}`, this.cfg.quotas.userMb, [this.userDir(user)]);
  }

  /**
   * A quota's counter over its folders and the git directories of the versioned zones in them
   * (versions/<folder> and versions/<folder>.git: see gitdirOf), whose bytes count too.
   */
  private quotaOf(key: string, mb: number, folders: string[]): QuotaHandle | Promise<QuotaHandle> {
    const git = folders.flatMap((f) => {
      const rel = path.relative(this.base, f);
      return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? [] : [this.dir('versions', rel), this.dir('versions', rel + '.git')];
    });
    return this.quotas.handle(key, mb * MB, folders, maxFilesFor(this.cfg.quotas, mb), git);
  }

  private locate(name: string, ctx: Context): Zone | Promise<Zone> {
    if (name === 'root') {
      if (this.cfg.root === undefined) throw unknownZone(name, this.zoneNames());
      return { name, kind: 'root', root: this.cfg.root, versioned: false, policy: this.rootPolicy() };
    }
    const colon = name.indexOf(':');
    const kind = colon < 0 ? name : name.slice(0, colon);
    const arg = colon < 0 ? undefined : name.slice(colon + 1);
    // 'storage:bob' must not quietly mean the caller's own storage: only group: and session: take an id.
    if (arg !== undefined && kind !== 'group' && kind !== 'session') throw unknownZone(name, this.zoneNames());
    switch (kind) {
      case 'uploads': {
        const user = this.userOf(ctx);
        if (ctx.conversation === undefined) {
          throw new NoshError('MISSING_PARAMETER', 'the uploads zone needs a conversation id in the context', 'Pass context.conversation.');
        }
        const conv = validateId('conversation', ctx.conversation);
        return counted({ name, kind, root: this.ensureUser(user, 'Uploads', conv), versioned: false,
          policy: this.policyFor('uploads', { readonly: true, allowDelete: true }) }, this.userQuota(user));
      }
      case 'storage': case 'documents': case 'output': {
        const user = this.userOf(ctx);
        const sub = kind === 'storage' ? ['Storage'] : kind === 'documents' ? ['Documents'] : ['Storage', 'output'];
        return counted({ name, kind, root: this.ensureUser(user, ...sub), versioned: kind === 'documents',
          policy: this.policyFor(kind) }, this.userQuota(user));
      }
      case 'share':
        return counted({ name, kind, root: this.ensure('share'), versioned: false, policy: this.policyFor('share') },
          this.quotaOf('share', this.cfg.quotas.groupMb, [this.dir('share')]));
      case 'group': {
        const id = validateId('group', arg);
        const user = this.userOf(ctx);
        return this.isMember(user, id, ctx).then((member) => {
          if (!member) {
            throw new NoshError('GROUP_ACCESS_DENIED', `user '${user}' is not a member of group '${id}'`,
              'Use a group you belong to, or ask an administrator to add you.', { group: id });
          }
          return counted({ name, kind, root: this.ensure('groups', id), versioned: true, policy: this.policyFor('group') },
            this.quotaOf(`group:${id}`, this.cfg.quotas.groupMb, [this.dir('groups', id)]));
        });
      }
      case 'session': {
        const id = validateId('session', arg ?? ctx.session);
        this.claimSession(id, this.userOf(ctx));
        const root = this.ensure('sessions', id);
        const now = Date.now() / 1000;
        fs.utimesSync(root, now, now); // last use, for the TTL
        return counted({ name: `session:${id}`, kind, root, versioned: false, policy: this.policyFor('session') },
          this.quotaOf(`session:${id}`, this.cfg.quotas.sessionMb, [root]));
      }
      default: {
        const m = this.cfg.mounts.find((x) => x.name === name);
        if (!m) throw unknownZone(name, this.zoneNames());
        return { name, kind: 'mount', root: m.path, versioned: false, policy: this.cachedPolicy(`\0mount:${name}`, () => defaultPolicy({
          readonly: m.readonly, allowDelete: false, blockedPatterns: blockedList(m.blockedPatterns, m.replaceDefaultBlocked),
          allowedExtensions: m.allowedExtensions?.map((e) => e.toLowerCase()) ?? null,
          followSymlinks: m.followSymlinks ?? false, maxFileSize: m.maxFileSize ?? this.cfg.limits.maxFileSize,
        })) };
      }
    }
  }

  /**
   * Whether `user` is a member of `group`. The source of membership is the library's
   * groupProvider if there is one, else the config's groups map if it names any group, else the
   * groups the runtime asserted in the context. A context's groups next to a provider or a map
   * only narrow what they grant: a claim never adds a group (the bound identity of a server
   * refuses such a claim before it gets here).
   */
  async isMember(user: string, group: string, ctx: Context): Promise<boolean> {
    if (ctx.groups && !ctx.groups.includes(group)) return false;
    return (await this.groupsOf(user, ctx)).includes(group);
  }

  /** Whether membership has a source other than the caller's own context (a provider or the config's map): another user's can be checked. */
  get membershipKnown(): boolean {
    return this.groupProvider !== undefined || Object.keys(this.cfg.groups).length > 0;
  }

  /** Members of a group by the config's map (undefined: a provider or the contexts decide). */
  membersOf(group: string): string[] | undefined {
    if (this.groupProvider || !Object.hasOwn(this.cfg.groups, group)) return undefined;
    return [...(this.cfg.groups[group] ?? [])];
  }

  /** The groups of a user, from the one source of membership (see isMember). */
  async groupsOf(user: string, ctx: Context): Promise<string[]> {
    if (this.groupProvider) return [...await this.groupProvider(user)];
    const map = this.cfg.groups;
    // own keys only (Object.keys): a group named __proto__ or constructor must not read Object.prototype
    const groups = Object.keys(map);
    if (groups.length > 0) return groups.filter((g) => (map[g] ?? []).includes(user));
    return [...(ctx.groups ?? [])];
  }

  /**
   * A session zone belongs to the user who first used it (recorded outside the zone, in
   * session-owners/{id}): another user naming the same id is refused, not let in.
   */
  private claimSession(id: string, user: string): void {
    const file = this.dir('session-owners', id);
    // Read first: every call but the first finds the owner there (a failed exclusive create
    // would cost an exception per call). Not cached: maintenance may expire the session.
    let owner = readIfExists(file);
    if (owner === undefined) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      try {
        fs.writeFileSync(file, user, { flag: 'wx' });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      owner = fs.readFileSync(file, 'utf8');
    }
    if (owner !== user) {
      throw new NoshError('PERMISSION_DENIED', `session '${id}' belongs to another user`,
        'Use the session id of your own context (context.session).', { session: id });
    }
  }

  zoneNames(): string[] {
    return [...(this.cfg.root !== undefined ? ['root'] : []), ...BUILTIN_ZONES, 'group:<id>', 'session:<id>', ...this.cfg.mounts.map((m) => m.name)];
  }

  /** Host folders nosh writes in (where temp files of killed writes are looked for). */
  writableFolders(): string[] {
    return [this.base, ...(this.cfg.root !== undefined && !this.cfg.policy.readonly ? [path.resolve(this.cfg.root)] : []),
      ...this.cfg.mounts.filter((m) => !m.readonly).map((m) => path.resolve(m.path))];
  }

  dir(...parts: string[]): string {
    return path.join(this.base, ...parts);
  }

  /** The folder of a user's zones: users/{user}, or companion/ for the configured companion identity. */
  userDir(user: string): string {
    return this.cfg.companion !== undefined && user === this.cfg.companion.user ? this.dir('companion') : this.dir('users', user);
  }

  private ensure(...parts: string[]): string {
    const p = this.dir(...parts);
    fs.mkdirSync(p, { recursive: true });
    return p;
  }

  /**
   * A zone folder below users/{user}, made if missing: the folders made count against the
   * user's quota (they are entries below its folder, as a rescan counts them). Before the
   * quota's first scan there is nothing to add to: the scan finds them.
   */
  private ensureUser(user: string, ...sub: string[]): string {
    const top = this.userDir(user);
    const p = path.join(top, ...sub);
    const first = fs.mkdirSync(p, { recursive: true });
    if (first !== undefined) {
      const made = first.startsWith(top + path.sep) ? p.split(path.sep).length - first.split(path.sep).length + 1 : sub.length;
      this.quotas.addFiles(`user:${user}`, made);
    }
    return p;
  }
}

/** The zone with its quota counter, a promise while the counter's first scan runs. */
function counted(zone: Zone, quota: QuotaHandle | Promise<QuotaHandle>): Zone | Promise<Zone> {
  return quota instanceof Promise ? quota.then((q) => ({ ...zone, quota: q })) : { ...zone, quota };
}

/** A read-only role makes every zone read-only for that caller. */
export function withRole(zone: Zone, ctx: Context): Zone {
  if (roleMayWrite(ctx.role)) return zone;
  return { ...zone, policy: { ...zone.policy, readonly: true, allowDelete: false, readonlyRole: ctx.role } };
}

/** Folders of the kernel's view of the host: /proc/self/environ, devices, sysfs. */
const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

/**
 * A folder that would hand out the host is refused at start (INVALID_ARGUMENT naming it, not
 * its path): /proc, /sys, /dev or anything under them or above them (/), and with `base`, the
 * base or a folder holding it (every user's zones). Real paths decide: a symlink to /proc/self
 * is /proc/self.
 */
function refuseHostFolder(what: string, folder: string, base: string, checkBase: boolean): void {
  const real = realish(folder);
  const within = (inner: string, outer: string) => outer === '/' || inner === outer || inner.startsWith(outer + '/');
  if (SYSTEM_FOLDERS.some((sys) => within(real, sys) || within(sys, real))) {
    throw new NoshError('INVALID_ARGUMENT', `config: ${what}: its folder is or holds a system folder (/proc, /sys, /dev), which hands out the host`,
      'Give a folder of files: not /proc, /sys, /dev, anything below them, or /.', { key: what });
  }
  if (checkBase && within(realish(base), real)) {
    throw new NoshError('INVALID_ARGUMENT', `config: ${what}: its folder is or holds the base folder (every user's zones)`,
      'Give a folder outside the base: a folder that holds the base hands out every zone and the metadata.', { key: what });
  }
}

/** The real path of a folder; for one not there yet, that of its nearest existing ancestor plus the rest. */
function realish(p: string): string {
  const abs = path.resolve(p);
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest);
    } catch {
      const up = path.dirname(head);
      if (up === head) return abs;
      rest.unshift(path.basename(head));
      head = up;
    }
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Shared between calls, so made immutable: a stray write to it throws instead of leaking into other calls. */
function freezePolicy(p: ZonePolicy): ZonePolicy {
  if (p.allowedCommands) Object.freeze(p.allowedCommands);
  if (p.allowedExtensions) Object.freeze(p.allowedExtensions);
  Object.freeze(p.blockedPatterns);
  return Object.freeze(p);
}

function unknownZone(name: string, names: string[]): NoshError {
  // the name is echoed cut: a caller's 15 MB zone name came back twice in the error
  const shown = name.length > 100 ? name.slice(0, 100) + '…' : name;
  return new NoshError('INVALID_ZONE', `unknown zone '${shown}'`, `Zones: ${names.join(', ')}.`, { zone: shown });
}

/**
 * A configured policy as overrides of the defaults: its blockedPatterns add to
 * DEFAULT_BLOCKED_PATTERNS (a mount listing '*.log' must not make .env readable) unless
 * replaceDefaultBlocked says they replace them.
 */
function overrides(p: ResolvedConfig['policy']): Partial<ZonePolicy> {
  const { blockedPatterns, replaceDefaultBlocked, versioned: _versioned, ...rest } = p;
  const out = clean(rest);
  if (blockedPatterns !== undefined || replaceDefaultBlocked) out.blockedPatterns = blockedList(blockedPatterns, replaceDefaultBlocked);
  return out;
}

/** The zone's own patterns first (check_access names the first that blocks), then the defaults. */
function blockedList(patterns: string[] | undefined, replaceDefaults: boolean | undefined): string[] {
  if (replaceDefaults) return [...new Set(patterns ?? [])];
  return patterns === undefined ? DEFAULT_BLOCKED_PATTERNS : [...new Set([...patterns, ...DEFAULT_BLOCKED_PATTERNS])];
}

function clean<T extends object>(o: T): Partial<ZonePolicy> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<ZonePolicy>;
}

export function defaultHomeDir(): string {
  return process.env.NOSH_HOME || path.join(process.env.HOME || '/tmp', '.nosh');
}
