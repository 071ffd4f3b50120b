// swift-tools-version: 6.0
import PackageDescription

/// Every target gets the same settings: Swift 6 language mode and explicit existentials.
let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")
]

/// The targets that run worlds are optimised in debug builds too: the test suite runs thousands
/// of worlds in-process and through the debug binary, and unoptimised they took most of its time.
/// `-enable-testing` is kept, so `@testable import` still works.
let worldSettings: [SwiftSetting] = settings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
  name: "SyncSim",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "syncsim", targets: ["syncsim"])
  ],
  targets: [
    // Domain-free discrete-event kernel: no Foundation, no other target.
    .target(
      name: "SimKernel", swiftSettings: worldSettings,
      linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // The simulated world: devices, scheduler, CloudKit server, push, export/import.
    .target(name: "SimModel", dependencies: ["SimKernel"], swiftSettings: worldSettings),
    // Metrics computed from the model's observations: latency rows, stage attribution, the run
    // summary, and CSV tables. Knows nothing of the scenario format.
    // Its recorder is a class whose arrays every observation updates: the runtime's exclusivity
    // checks on them cost an eighth of a fleet's run (docs/performance.md), and no code here
    // holds two accesses to one of them at once.
    .target(
      name: "SimMetrics", dependencies: ["SimModel", "SimKernel"],
      swiftSettings: worldSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    // The scenario format: JSON parser, decoder and schema, the data model's rules and record
    // mapping, and running a scenario into its result files.
    .target(name: "SimScenario", dependencies: ["SimMetrics", "SimModel", "SimKernel"], swiftSettings: worldSettings),
    // Experiments over scenarios: sweep plans, parallel runs, statistics.
    .target(
      name: "SimExperiments", dependencies: ["SimScenario", "SimMetrics", "SimModel", "SimKernel"],
      swiftSettings: worldSettings),
    // Your app's own sync: its logs read and reconstructed, a twin fitted to them, and the
    // event log a simulated run would have written.
    .target(
      name: "SimTwin", dependencies: ["SimReport", "SimExperiments", "SimScenario", "SimMetrics", "SimModel", "SimKernel"],
      swiftSettings: worldSettings),
    // The visual report: a run's or a sweep's CSV files as one self-contained HTML page.
    .target(name: "SimReport", dependencies: ["SimMetrics"], swiftSettings: settings),
    // Argument parsing and commands, callable in-process by tests.
    .target(
      name: "SimCLI", dependencies: ["SimTwin", "SimReport", "SimExperiments", "SimScenario", "SimMetrics", "SimModel", "SimKernel"],
      swiftSettings: settings),
    // Linked with the Swift runtime and Foundation inside it on Linux: a process then starts in
    // 3 ms, not 11-15 ms (the dynamic loader binding symbols of Foundation and ICU), a twentieth
    // of a 2,000-device fleet's run (docs/performance.md, round 5). The libraries after
    // -static-stdlib are those the static Foundation of Swift 6.3 needs besides it.
    .executableTarget(
      name: "syncsim", dependencies: ["SimCLI"], swiftSettings: settings,
      linkerSettings: [
        .unsafeFlags(
          [
            "-static-stdlib", "-lCoreFoundation", "-l_FoundationCShims", "-l_FoundationCollections",
            "-l_FoundationICU", "-lswiftSynchronization",
          ], .when(platforms: [.linux]))
      ]),
    // What the test targets share: running the command line in-process, temporary folders.
    .target(name: "SimTestSupport", dependencies: ["SimCLI", "SimScenario"], path: "Tests/SimTestSupport", swiftSettings: settings),
    .testTarget(name: "SimKernelTests", dependencies: ["SimKernel"], swiftSettings: settings),
    .testTarget(
      name: "SimModelTests", dependencies: ["SimModel", "SimKernel", "SimMetrics"], swiftSettings: settings),
    .testTarget(
      name: "SimMetricsTests", dependencies: ["SimMetrics", "SimModel", "SimKernel"], swiftSettings: settings),
    .testTarget(
      name: "SimScenarioTests",
      dependencies: ["SimTestSupport", "SimExperiments", "SimScenario", "SimMetrics", "SimModel", "SimKernel"],
      swiftSettings: settings),
    .testTarget(
      name: "SimCLITests",
      dependencies: [
        "SimTestSupport", "SimCLI", "SimTwin", "SimReport", "SimExperiments", "SimScenario", "SimMetrics", "SimModel", "SimKernel",
      ],
      // Read by path (`packageRoot`), not bundled.
      exclude: ["Fixtures"],
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
