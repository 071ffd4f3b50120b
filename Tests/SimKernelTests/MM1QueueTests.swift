import Testing

@testable import SimKernel

/// An M/M/1 queue built on the kernel, to validate the kernel against queueing theory.
private enum QueueEvent: SimEvent {
  case arrival
  case departure
  var traceKind: UInt32 { self == .arrival ? 1 : 2 }
  var traceEntity: UInt32 { 0 }
}

private struct MM1: EventHandler {
  let arrivalRate: Double
  let serviceRate: Double
  let customerLimit: Int
  var arrivals = RandomStream(seed: 2024, name: "arrivals")
  var services = RandomStream(seed: 2024, name: "services")
  var waitingSince: [SimTime] = []  // FIFO of queued customers' arrival times
  var queueHead = 0
  var busy = false
  var arrived = 0
  var waits: [Double] = []
  /// Integral of the queue length (excluding the one in service) over time, in customer·seconds.
  var queueArea = 0.0
  var lastChange = SimTime.zero

  init(arrivalRate: Double, serviceRate: Double, customerLimit: Int) {
    self.arrivalRate = arrivalRate
    self.serviceRate = serviceRate
    self.customerLimit = customerLimit
  }

  mutating func account(_ now: SimTime) {
    queueArea += Double(waitingSince.count - queueHead) * (now - lastChange).seconds
    lastChange = now
  }

  mutating func handle(_ event: QueueEvent, in sim: inout Simulation<QueueEvent>) {
    account(sim.now)
    switch event {
    case .arrival:
      arrived += 1
      if arrived < customerLimit {
        sim.schedule(.arrival, after: SimDuration(seconds: arrivals.exponential(mean: 1 / arrivalRate)))
      }
      if busy {
        waitingSince.append(sim.now)
      } else {
        busy = true
        waits.append(0)
        sim.schedule(.departure, after: SimDuration(seconds: services.exponential(mean: 1 / serviceRate)))
      }
    case .departure:
      if queueHead < waitingSince.count {
        waits.append((sim.now - waitingSince[queueHead]).seconds)
        queueHead += 1
        sim.schedule(.departure, after: SimDuration(seconds: services.exponential(mean: 1 / serviceRate)))
      } else {
        busy = false
      }
    }
  }
}

@Suite struct MM1QueueTests {
  @Test func meanWaitMatchesTheAnalyticValueAndLittlesLawHolds() {
    let lambda = 0.5, mu = 1.0
    let rho = lambda / mu
    let analyticWait = rho / (mu - lambda)  // 1.0 s
    var model = MM1(arrivalRate: lambda, serviceRate: mu, customerLimit: 400_000)
    var sim = Simulation<QueueEvent>()
    sim.schedule(.arrival, at: .zero)
    let result1 = sim.run(&model)
    #expect(result1 == .drained)
    #expect(model.waits.count == 400_000)

    // Batch means: drop a warm-up of 10,000 customers, then 30 batches.
    let kept = Array(model.waits.dropFirst(10_000))
    let batchSize = kept.count / 30
    let batchMeans = (0..<30).map { b in
      kept[(b * batchSize)..<((b + 1) * batchSize)].reduce(0, +) / Double(batchSize)
    }
    let grandMean = batchMeans.reduce(0, +) / 30
    let sd = (batchMeans.reduce(0) { $0 + ($1 - grandMean) * ($1 - grandMean) } / 29).squareRoot()
    // 99.9 % two-sided t interval with 29 degrees of freedom: t = 3.659.
    let halfWidth = 3.659 * sd / Double(30).squareRoot()
    #expect(abs(grandMean - analyticWait) <= halfWidth, "W_q = \(grandMean) ± \(halfWidth), expected \(analyticWait)")
    #expect(halfWidth < 0.1, "the interval must be tight enough to mean something")

    // Little's law on the whole run: time-average queue length = arrival rate × mean wait.
    let horizon = sim.now.seconds
    let averageQueue = model.queueArea / horizon
    let observedRate = Double(model.waits.count) / horizon
    let meanWait = model.waits.reduce(0, +) / Double(model.waits.count)
    #expect(abs(averageQueue - observedRate * meanWait) / averageQueue < 1e-6)
    #expect(abs(averageQueue - lambda * analyticWait) < 0.1)
  }
}
