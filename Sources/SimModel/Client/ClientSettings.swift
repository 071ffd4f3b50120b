import SimKernel

/// What the sync clients read of the world's scenario: the server's and polling's parameters,
/// the devices' and the entities' declarations, and the run's few settings they follow. World
/// gives them this at its start (`SyncClients.settings`), never the whole `WorldSpec`, so the
/// clients sit below the spec that names every component's plug-ins.
struct ClientSettings {
  var server = ServerParameters()
  var polling = PollingParameters()
  /// Per device, as the scenario declares it (its app, its CKSyncEngine settings, its workload).
  var devices: [DeviceSpec] = []
  var entities: [EntityDescription] = []
  /// How long the run is.
  var duration = SimDuration.zero
  /// Whether a second export request is dropped while one is pending. [A] TN3163 error 134417
  var exportRequestCoalescing = true
  /// An export that finds nothing to send takes this long. [A] TN3163 (35 ms)
  var emptyExportDuration = SimDuration.zero
  /// The fewest writes made between two releases of unreferenced writes (`WriteTable`).
  var writeReleaseMinimum = 4096
}
