// Starts and stops the long-lived parts of a process (see docs/architecture.md). Each module
// names the modules it needs; they start in dependency order, and stop in reverse: a module stops
// once every module that needs it has stopped, so parts nobody waits on stop side by side.

export interface Module {
  name: string;
  /** Modules that must be running before this one starts, and still running until it stops. */
  dependsOn?: string[];
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

/** Milliseconds each module took to start or stop, by name. */
export type StepTimes = Record<string, number>;

export class Supervisor {
  private readonly order: Module[];
  private readonly started: Module[] = [];
  private stopping: Promise<StepTimes> | undefined;

  constructor(modules: Module[]) {
    this.order = startOrder(modules);
  }

  /** Starts every module in dependency order; when one fails, stops those started and rethrows. */
  async start(): Promise<StepTimes> {
    const times: StepTimes = {};
    for (const module of this.order) {
      try {
        times[module.name] = await timed(() => module.start?.());
      } catch (error) {
        await this.stop().catch(() => undefined);
        throw error;
      }
      this.started.push(module);
    }
    return times;
  }

  /**
   * Stops the started modules, each after the modules that depend on it. A module that fails to
   * stop does not keep the others running: they all stop, then the first error is thrown.
   */
  stop(): Promise<StepTimes> {
    this.stopping ??= stopAll(this.started);
    return this.stopping;
  }
}

async function timed(work: () => Promise<void> | void): Promise<number> {
  const began = performance.now();
  await work();
  return Math.round(performance.now() - began);
}

async function stopAll(started: Module[]): Promise<StepTimes> {
  const times: StepTimes = {};
  const errors: unknown[] = [];
  const stopped = new Map<string, Promise<void>>();
  // Reverse start order: every dependent of a module is visited before it.
  for (const module of [...started].reverse()) {
    const dependents = started.filter((other) => other.dependsOn?.includes(module.name));
    const after = Promise.all(dependents.map((dependent) => stopped.get(dependent.name) ?? Promise.resolve()));
    stopped.set(
      module.name,
      after.then(async () => {
        try {
          if (module.stop) times[module.name] = await timed(() => module.stop?.());
        } catch (error) {
          errors.push(error);
        }
      }),
    );
  }
  await Promise.all(stopped.values());
  if (errors.length > 0) throw errors[0];
  return times;
}

/**
 * The modules a process runs (its role's): the others are left out, and so are the dependencies
 * on them, since what needs them on one role does without them on another.
 */
export function selectModules(modules: Module[], runs: (name: string) => boolean): Module[] {
  const kept = new Set(modules.filter((module) => runs(module.name)).map((module) => module.name));
  return modules
    .filter((module) => kept.has(module.name))
    .map((module) => ({ ...module, dependsOn: module.dependsOn?.filter((name) => kept.has(name)) }));
}

/** The modules ordered so that each comes after its dependencies (declaration order otherwise). */
export function startOrder(modules: Module[]): Module[] {
  const byName = new Map<string, Module>();
  for (const module of modules) {
    if (byName.has(module.name)) throw new Error(`two modules are named ${module.name}`);
    byName.set(module.name, module);
  }
  const order: Module[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (module: Module, path: string[]) => {
    if (state.get(module.name) === 'done') return;
    if (state.get(module.name) === 'visiting')
      throw new Error(`modules depend on each other in a cycle: ${[...path, module.name].join(' → ')}`);
    state.set(module.name, 'visiting');
    for (const name of module.dependsOn ?? []) {
      const dependency = byName.get(name);
      if (!dependency) throw new Error(`module ${module.name} depends on ${name}, which is not one of the modules`);
      visit(dependency, [...path, module.name]);
    }
    state.set(module.name, 'done');
    order.push(module);
  };
  for (const module of modules) visit(module, []);
  return order;
}
