import SimKernel
import SimMetrics
import SimModel
import SimScenario

/// Fits a twin to a log by approximate Bayesian computation with sequential Monte Carlo
/// (ABC-SMC, Beaumont et al. 2009): worlds are simulated from parameters drawn from the prior,
/// the summaries of their logs compared with the log's, and the closest kept; each generation
/// then perturbs the kept ones and accepts only closer worlds. Likelihood-free, because a
/// world's likelihood cannot be written down; on summaries, because logs differ event by
/// event. Every world runs in-process from one decoded scenario; the result is the same for
/// any number of threads.
public struct TwinFit: Sendable {
  public struct Options: Sendable {
    public var particles = 100
    /// Generation 0 draws this many times `particles` from the prior and keeps the closest.
    public var initialFactor = 5
    public var generations = 12
    /// The fit stops once it has simulated this many worlds (after the generation under way).
    public var maxWorlds = 5000
    /// Most proposal batches (of `particles` each) per generation.
    public var maxBatches = 6
    public var seed: UInt64 = 1
    public var jobs = 1
    /// Draws from the posterior simulated for the predictive intervals.
    public var predictiveDraws = 100
    /// Corrects the final particles by local-linear regression on their summaries' distance
    /// from the log's (Beaumont, Zhang & Balding 2002): ABC's accepted worlds are only near the
    /// log, and the correction moves each to where its parameters would sit at the log itself.
    /// Off by default: in simulation-based calibration it made intervals too narrow (41–50 of 50
    /// true values inside the 90 % intervals, against 47–50 without it; docs/event-log.md).
    public var regressionAdjustment = false
    /// Lazy ABC (Prangle 2016): each world is first run until this share of the part fitted's
    /// events has been logged, and its summaries there compared with the log's. From the second generation on, a world
    /// farther from the log there than `earlyFactor` times the farthest of the kept worlds was
    /// goes on only with probability `earlyKeep`, and one that does and is accepted weighs
    /// 1/`earlyKeep`: the posterior is the same in expectation, and only the hopeless worlds'
    /// time is saved. Off by default (0): in simulation-based calibration with it at 0.3,
    /// `cloud.requestLatency`'s ranks piled in the middle (χ² 46.8 against 13.2 without it,
    /// docs/event-log.md §8), the fits ending less refined when fewer worlds are accepted.
    public var earlyShare = 0.0
    public var earlyFactor = 1.0
    public var earlyKeep = 0.1
    public init() {}
  }

  /// The log's summaries over the first part of the part fitted, which a world's first part is
  /// held against (lazy ABC: `Options.earlyShare`).
  public struct EarlyLook: Sendable {
    /// Where the first part ends (the log's wall clock, microseconds).
    public var end: Int64
    public var observed: LogSummaries
    public init(end: Int64, observed: LogSummaries) {
      self.end = end
      self.observed = observed
    }
  }

  /// What decides, at a world's checkpoint, whether to run it on.
  struct EarlyDecision: Sendable {
    var look: EarlyLook
    var active: [Int]
    var scales: [Double]
    /// The distance past which a world goes on only with probability `keep`.
    var limit: Double
    var keep: Double
  }

  /// One world's summaries and the factor its weight takes for having been run on (1, or
  /// 1/keep when it looked hopeless at its checkpoint); no summaries when it was stopped there.
  struct Outcome: Sendable {
    var summaries: [Double?]
    var factor: Double
    var stopped: Bool
    /// Its summaries up to the checkpoint (none without one).
    var early: [Double?]
  }

  /// One world's parameters (each at its position in the prior, 0…1) and how close it came.
  public struct Particle: Sendable {
    public var units: [Double]
    public var distance: Double
    public var weight: Double
    public var summaries: [Double?]
    /// Its distance from the log's first part at the checkpoint (nan when not looked at).
    public var earlyDistance = Double.nan
  }

  /// A generation's threshold and how many proposals it took.
  public struct Generation: Sendable {
    public var epsilon: Double
    public var proposed: Int
    public var accepted: Int
    /// Worlds stopped at their checkpoint as hopeless (lazy ABC), of those proposed.
    public var stopped = 0
  }

  public let parameters: [TwinParameter]
  public let spec: WorldSpec
  public let names: [String]
  public let epoch: Int64
  public let observed: LogSummaries
  /// What the app's log sees: each simulated log is looked at through it.
  public let lens: LogLens
  public let options: Options
  let sigmas: [Double]
  /// The log's first part, when the fit stops hopeless worlds there (set by `TwinFitRun`).
  public var earlyLook: EarlyLook?

  public init(
    parameters: [TwinParameter], spec: WorldSpec, names: [String], epoch: Int64, observed: LogSummaries, lens: LogLens,
    options: Options
  ) {
    self.lens = lens
    self.parameters = parameters
    self.spec = spec
    self.names = names
    self.epoch = epoch
    self.observed = observed
    self.options = options
    sigmas = parameters.map { $0.sigma(in: spec) }
  }

  /// The summaries of one world of `spec` with the parameters at `units`, looked at `early`'s
  /// checkpoint when given: a world whose first part lies past
  /// the limit goes on only when its own draw (from its seed, so the same on any thread) falls
  /// under `keep`.
  static func simulate(
    _ spec: WorldSpec, names: [String], epoch: Int64, parameters: [TwinParameter], sigmas: [Double], units: [Double],
    seed: UInt64, lens: LogLens, window: (start: Int64, end: Int64)?, early: EarlyDecision?
  ) -> Outcome {
    var world = spec
    world.seed = seed
    for (index, parameter) in parameters.enumerated() {
      parameter.apply(parameter.value(atUnit: units[index]), sigma: sigmas[index], to: &world)
    }
    var factor = 1.0
    var earlySummaries: [Double?] = []
    let checkpoint = early.map { early in
      (
        time: early.look.end,
        proceed: { (told: [LogEvent], devices: [SyncLog.Device]) -> Bool in
          let span = (start: epoch, end: early.look.end)
          let events = lens.apply(LogEvent.inTimeOrder(told)).filter { $0.time >= span.start && $0.time < span.end }
          let first = LogSummaries(SyncTrace(events: events, devices: devices, span: span))
          let d = distance(first.values, observed: early.look.observed.values, active: early.active, scales: early.scales)
          earlySummaries = first.values
          guard d > early.limit else { return true }
          var draw = RandomStream(seed: seed, name: "fit.early")
          guard draw.nextUnit() < early.keep else { return false }
          factor = 1 / early.keep
          return true
        }
      )
    }
    guard let log = SimulatedLog.run(world, names: names, epoch: epoch, checkpoint: checkpoint) else {
      return Outcome(summaries: [], factor: 0, stopped: true, early: earlySummaries)
    }
    let span = window ?? (epoch, epoch + world.duration.nanoseconds / 1000)
    let events = lens.apply(log.events).filter { $0.time >= span.start && $0.time < span.end }
    let trace = SyncTrace(events: events, devices: log.devices, span: span)
    return Outcome(summaries: LogSummaries(trace).values, factor: factor, stopped: false, early: earlySummaries)
  }

  /// The summaries the distance uses: those the log has.
  var active: [Int] { observed.values.indices.filter { observed.values[$0] != nil } }

  static func transformed(_ value: Double, share: Bool) -> Double {
    share ? value : DeterministicMath.log(value + 1e-3)
  }

  func distance(_ summaries: [Double?], scales: [Double]) -> Double {
    Self.distance(summaries, observed: observed.values, active: active, scales: scales)
  }

  /// The root mean square of the scaled differences of `summaries` from `observed` over
  /// `active`; a summary the world lacks counts 3 scales away. A stopped world's (none) is
  /// infinitely far.
  static func distance(_ summaries: [Double?], observed: [Double?], active: [Int], scales: [Double]) -> Double {
    guard !summaries.isEmpty else { return .infinity }
    var total = 0.0
    for index in active {
      let share = LogSummaries.definitions[index].isShare
      guard let value = summaries[index] else {
        total += 9
        continue
      }
      let difference =
        (transformed(value, share: share) - transformed(observed[index]!, share: share)) / scales[index]
      total += difference * difference
    }
    return active.isEmpty ? 0 : (total / Double(active.count)).squareRoot()
  }

  /// Simulates every proposal, on `options.jobs` threads; results in proposal order. With
  /// `early`, hopeless worlds are stopped at its checkpoint (most of them: lazy ABC).
  func evaluate(_ proposals: [[Double]], generation: Int, batch: Int, early: EarlyDecision? = nil) -> [Outcome] {
    let seed = options.seed
    return simulateAll(proposals, spec: spec, epoch: epoch, window: nil, early: early) { index in
      RandomStream.derivedSeed(
        seed: seed, name: "fit", index: UInt64(generation) << 40 | UInt64(batch) << 20 | UInt64(index))
    }
  }

  /// The checkpoint's decision: worlds farther than `limit` from the log's first part there
  /// go on with probability `keep` (an infinite limit only measures); nil when the fit does not
  /// look early (turned off, or the log's first part shows nothing).
  func earlyDecision(limit: Double, scales: [Double]) -> EarlyDecision? {
    guard options.earlyShare > 0, options.earlyKeep > 0, let look = earlyLook, !limit.isNaN else { return nil }
    let active = earlyActive(look)
    guard !active.isEmpty else { return nil }
    return EarlyDecision(look: look, active: active, scales: scales, limit: limit, keep: min(1, options.earlyKeep))
  }

  /// The summaries the early distance uses: those both the log's first part and the whole have.
  func earlyActive(_ look: EarlyLook) -> [Int] {
    look.observed.values.indices.filter { look.observed.values[$0] != nil && observed.values[$0] != nil }
  }

  /// A world's distance from the log's first part at the checkpoint (nan when not looked at).
  func earlyDistance(_ outcome: Outcome, scales: [Double]) -> Double {
    guard let look = earlyLook, !outcome.early.isEmpty else { return .nan }
    return Self.distance(outcome.early, observed: look.observed.values, active: earlyActive(look), scales: scales)
  }

  /// The limit for a generation proposed from `population`: the farthest any kept world was
  /// from the log at the checkpoint, times `earlyFactor`. A world farther than every kept one
  /// there rarely comes closer than they did by the end (the early distances are noisier than
  /// the whole run's, so the kept worlds' own, not the threshold, say how far is too far).
  func earlyLimit(_ population: [Particle]) -> Double {
    let distances = population.map(\.earlyDistance)
    guard !distances.isEmpty, distances.allSatisfy({ $0.isFinite }) else { return .nan }
    return distances.max()! * options.earlyFactor
  }

  /// The summaries of a world of `spec` for each of `units`, on `options.jobs` threads, each
  /// with the seed `seed` gives its position; results in order, whatever the threads.
  func simulateAll(
    _ units: [[Double]], spec: WorldSpec, epoch: Int64, window: (start: Int64, end: Int64)?,
    early: EarlyDecision? = nil, seed: @escaping @Sendable (Int) -> UInt64
  ) -> [Outcome] {
    let store = ResultStore<Outcome>(count: units.count)
    let names = self.names
    let parameters = self.parameters
    let sigmas = self.sigmas
    let lens = self.lens
    WorkerPool(jobs: options.jobs).run(count: units.count) { index in
      let outcome = Self.simulate(
        spec, names: names, epoch: epoch, parameters: parameters, sigmas: sigmas, units: units[index],
        seed: seed(index), lens: lens, window: window, early: early)
      store.set(index, outcome)
    }
    return store.results()
  }

  /// The particle at which the running sum of weights first reaches `target` (the last one if
  /// none does): a draw by weight, `target` being a uniform draw times the weights' total.
  public static func pick(_ particles: [Particle], target: Double) -> Particle {
    var remaining = target
    for particle in particles {
      remaining -= particle.weight
      if remaining <= 0 { return particle }
    }
    return particles[particles.count - 1]
  }

  /// What the fit found.
  public struct Posterior: Sendable {
    public var particles: [Particle]
    public var generations: [Generation]
    public var worlds: Int
    public var scales: [Double]
    /// Worlds stopped at their checkpoint as hopeless, over all generations.
    public var stoppedEarly: Int { generations.reduce(0) { $0 + $1.stopped } }
  }

  public func run(progress: ((Int, Int) -> Void)? = nil) -> Posterior {
    var random = RandomStream(seed: options.seed, name: "fit.proposals")
    let count = parameters.count
    let initial = (0..<(options.particles * options.initialFactor)).map { _ in (0..<count).map { _ in random.nextUnit() } }
    // The prior's worlds run whole; their first parts are measured for the limit below.
    let initialOutcomes = evaluate(
      initial, generation: 0, batch: 0,
      early: earlyDecision(limit: .infinity, scales: Array(repeating: 1, count: LogSummaries.definitions.count)))
    let initialSummaries = initialOutcomes.map(\.summaries)
    var worlds = initial.count
    // Each summary's scale: its spread over the prior's worlds (median absolute deviation).
    var scales = Array(repeating: 1.0, count: LogSummaries.definitions.count)
    for index in active {
      let share = LogSummaries.definitions[index].isShare
      let values = initialSummaries.compactMap { $0[index].map { Self.transformed($0, share: share) } }
      scales[index] = max(TwinStatistics.mad(values), share ? 0.02 : 0.05)
    }
    var population = zip(initial, initialOutcomes).map {
      Particle(
        units: $0, distance: distance($1.summaries, scales: scales), weight: 1, summaries: $1.summaries,
        earlyDistance: earlyDistance($1, scales: scales))
    }
    population.sort { $0.distance < $1.distance }
    population = Array(population.prefix(options.particles))
    var generations = [
      Generation(epsilon: population.last?.distance ?? 0, proposed: initial.count, accepted: population.count)
    ]
    progress?(0, worlds)
    for generation in 1...max(1, options.generations) where options.generations > 0 {
      let epsilon = TwinStatistics.quantile(population.map(\.distance).sorted(), 0.5)
      let kernel = (0..<count).map { j -> Double in
        let total = population.reduce(0) { $0 + $1.weight }
        let mean = population.reduce(0) { $0 + $1.weight * $1.units[j] } / total
        let variance = population.reduce(0) { $0 + $1.weight * ($1.units[j] - mean) * ($1.units[j] - mean) } / total
        return max((2 * variance).squareRoot(), 1e-4)
      }
      var accepted: [Particle] = []
      var proposed = 0
      var stopped = 0
      let early = earlyDecision(limit: earlyLimit(population), scales: scales)
      for batch in 0..<options.maxBatches where accepted.count < options.particles {
        let proposals = (0..<options.particles).map { _ in propose(population, kernel, &random) }
        let results = evaluate(proposals, generation: generation, batch: batch, early: early)
        proposed += proposals.count
        worlds += proposals.count
        stopped += results.filter(\.stopped).count
        for (units, outcome) in zip(proposals, results) where accepted.count < options.particles {
          let d = distance(outcome.summaries, scales: scales)
          guard d <= epsilon else { continue }
          accepted.append(
            Particle(
              units: units, distance: d, weight: weight(units, population, kernel) * outcome.factor,
              summaries: outcome.summaries, earlyDistance: earlyDistance(outcome, scales: scales)))
        }
      }
      progress?(generation, worlds)
      generations.append(Generation(epsilon: epsilon, proposed: proposed, accepted: accepted.count, stopped: stopped))
      // Too few accepted to stand for a distribution: keep the last generation.
      guard accepted.count >= max(10, options.particles / 4) else { break }
      population = accepted
      if Double(accepted.count) / Double(proposed) < 0.05 || worlds >= options.maxWorlds { break }
    }
    let total = population.reduce(0) { $0 + $1.weight }
    for index in population.indices { population[index].weight /= total }
    if options.regressionAdjustment { population = adjusted(population, scales: scales) }
    return Posterior(particles: population, generations: generations, worlds: worlds, scales: scales)
  }

  /// The particles moved by a weighted local-linear regression of each parameter (on the
  /// prior's 0…1 scale) on the scaled differences from the log of the summaries that inform it;
  /// weights are the particles' times an Epanechnikov kernel of their distance. Each value stays
  /// inside the prior. A parameter with no such summary, or too few particles for its terms, is
  /// kept as it is.
  func adjusted(_ population: [Particle], scales: [Double]) -> [Particle] {
    let bandwidth = (population.map(\.distance).max() ?? 0) * 1.0001
    guard bandwidth > 0 else { return population }
    let weights = population.map { particle in
      let u = particle.distance / bandwidth
      return particle.weight * max(0, 1 - u * u)
    }
    var out = population
    for (j, parameter) in parameters.enumerated() {
      // Each parameter on the summaries that inform it, those the log has: a regression on all
      // of them moved parameters the log says nothing of.
      let terms = active.filter { parameter.informedBy.contains(LogSummaries.definitions[$0].name) }
      guard !terms.isEmpty, population.count > 2 * (terms.count + 1) else { continue }
      let rows: [[Double]] = population.map { particle in
        [1] + terms.map { index in
          guard let value = particle.summaries[index] else { return 0 }
          let share = LogSummaries.definitions[index].isShare
          return (Self.transformed(value, share: share) - Self.transformed(observed.values[index]!, share: share))
            / scales[index]
        }
      }
      let width = terms.count + 1
      // The normal equations XᵀWX β = XᵀWθ, with a small ridge on the slopes for stability.
      var gram = Array(repeating: Array(repeating: 0.0, count: width), count: width)
      var right = Array(repeating: 0.0, count: width)
      for (index, row) in rows.enumerated() {
        for a in 0..<width {
          right[a] += weights[index] * row[a] * population[index].units[j]
          for b in 0..<width { gram[a][b] += weights[index] * row[a] * row[b] }
        }
      }
      let ridge = 1e-6 * (0..<width).reduce(0) { $0 + gram[$1][$1] } / Double(width)
      for a in 1..<width { gram[a][a] += ridge }
      guard let beta = Self.solve(gram, right) else { continue }
      for index in out.indices {
        var shift = 0.0
        for a in 1..<width { shift += beta[a] * rows[index][a] }
        out[index].units[j] = min(1, max(0, population[index].units[j] - shift))
      }
    }
    return out
  }

  /// Solves `matrix · x = right` by Gaussian elimination with partial pivoting; nil when singular.
  static func solve(_ matrix: [[Double]], _ right: [Double]) -> [Double]? {
    var a = matrix
    var b = right
    let n = b.count
    for column in 0..<n {
      var pivot = column
      for row in (column + 1)..<n where abs(a[row][column]) > abs(a[pivot][column]) { pivot = row }
      guard abs(a[pivot][column]) > 1e-12 else { return nil }
      a.swapAt(column, pivot)
      b.swapAt(column, pivot)
      for row in (column + 1)..<n {
        let factor = a[row][column] / a[column][column]
        guard factor != 0 else { continue }
        for k in column..<n { a[row][k] -= factor * a[column][k] }
        b[row] -= factor * b[column]
      }
    }
    var x = Array(repeating: 0.0, count: n)
    for row in stride(from: n - 1, through: 0, by: -1) {
      var sum = b[row]
      for k in (row + 1)..<n { sum -= a[row][k] * x[k] }
      x[row] = sum / a[row][row]
    }
    return x
  }

  /// A particle drawn by weight and moved by the kernel, inside the prior.
  func propose(_ population: [Particle], _ kernel: [Double], _ random: inout RandomStream) -> [Double] {
    let total = population.reduce(0) { $0 + $1.weight }
    let chosen = Self.pick(population, target: random.nextUnit() * total)
    return chosen.units.indices.map { j in
      for _ in 0..<100 {
        let moved = chosen.units[j] + kernel[j] * random.standardNormal()
        if moved >= 0 && moved <= 1 { return moved }
      }
      return chosen.units[j]
    }
  }

  /// The importance weight of `units`: the prior (uniform) over the kernel's mixture density.
  func weight(_ units: [Double], _ population: [Particle], _ kernel: [Double]) -> Double {
    var mixture = 0.0
    for particle in population {
      var exponent = 0.0
      for j in units.indices {
        let z = (units[j] - particle.units[j]) / kernel[j]
        exponent += z * z
      }
      mixture += particle.weight * DeterministicMath.exp(-exponent / 2)
    }
    return 1 / max(mixture, 1e-300)
  }

  /// Summaries of `draws` worlds of `spec` from parameters resampled from the posterior, over
  /// `window` of each world (default: all of it). The held-back part is predicted by worlds of
  /// the whole log, summarised over the part: each enters it with the state the part before
  /// left (a rate limit spent, changes pending), as the app did.
  public func predict(
    _ posterior: Posterior, spec: WorldSpec, epoch: Int64, draws: Int, salt: String,
    window: (start: Int64, end: Int64)? = nil
  ) -> [[Double?]] {
    var random = RandomStream(seed: options.seed, name: "fit.predict." + salt)
    // The weights are normalised: a uniform draw is the target.
    let chosen = (0..<draws).map { _ in Self.pick(posterior.particles, target: random.nextUnit()).units }
    let seed = options.seed
    return simulateAll(chosen, spec: spec, epoch: epoch, window: window) { index in
      RandomStream.derivedSeed(seed: seed, name: "predict." + salt, index: UInt64(index))
    }.map(\.summaries)
  }
}
