// swift-tools-version: 6.0
import PackageDescription

/// Every target gets the same settings: Swift 6 language mode and explicit existentials.
let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "SyncSim",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "syncsim", targets: ["syncsim"]),
  ],
  targets: [
    // Domain-free discrete-event kernel: no Foundation, no other target.
    .target(
      name: "SimKernel", swiftSettings: settings,
      linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // The simulated world: devices, scheduler, CloudKit server, push, export/import.
    .target(name: "SimModel", dependencies: ["SimKernel"], swiftSettings: settings),
    // JSON scenarios, metrics and CSV on top of the model.
    .target(name: "SimScenario", dependencies: ["SimModel", "SimKernel"], swiftSettings: settings),
    // Argument parsing and commands, callable in-process by tests.
    .target(name: "SimCLI", dependencies: ["SimScenario", "SimModel", "SimKernel"], swiftSettings: settings),
    .executableTarget(name: "syncsim", dependencies: ["SimCLI"], swiftSettings: settings),
    .testTarget(name: "SimKernelTests", dependencies: ["SimKernel"], swiftSettings: settings),
    .testTarget(
      name: "SimModelTests", dependencies: ["SimModel", "SimKernel", "SimScenario"], swiftSettings: settings),
    .testTarget(
      name: "SimScenarioTests", dependencies: ["SimScenario", "SimCLI", "SimModel", "SimKernel"],
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
