import Foundation
import GalleryTestSupport

/// One Syncthing instance for the side-by-side benchmark: a home directory of its own, a config
/// that stays on 127.0.0.1 (`SyncthingConfig`), one process (`STMONITORED=1`: no monitor parent,
/// so `pid` is the process that works), driven through its REST API.
final class SyncthingNode {
    let name: String
    let home: URL
    let http: SyncthingHTTP
    let listenPort: UInt16
    /// The device ID (from `/rest/system/status`).
    private(set) var deviceID = ""
    private let process: ServeProcess

    /// Generates keys and a config in `home`, makes it loopback-only, starts Syncthing and waits
    /// until its API answers and its options are confirmed off.
    init(name: String, home: URL) throws {
        self.name = name
        self.home = home
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let generated = try GalleryProcess.run(
            ["generate", "--home=\(home.path)", "--no-default-folder", "--skip-port-probing"],
            executable: SyncthingNode.executable, timeout: 60)
        guard generated.ok else { throw BenchFailure.failed("syncthing generate failed: \(generated.stderr)\(generated.stdout)") }
        let guiPort = try FreePort.next(), listen = try FreePort.next()
        listenPort = listen
        let apiKey = "gallery-bench-" + UUID().uuidString.lowercased()
        let configURL = home.appendingPathComponent("config.xml")
        let xml = try String(contentsOf: configURL, encoding: .utf8)
        try SyncthingConfig.isolated(xml, guiPort: guiPort, apiKey: apiKey, listenPort: listen)
            .write(to: configURL, atomically: true, encoding: .utf8)
        http = SyncthingHTTP(port: guiPort, apiKey: apiKey)
        setenv("STNOUPGRADE", "1", 1)
        setenv("STNODEFAULTFOLDER", "1", 1)
        // Without it, `serve` (even with --no-restart) runs a monitor process that starts the
        // real one as its child: `pid` would then be the idle monitor's.
        setenv("STMONITORED", "1", 1)
        process = try ServeProcess(
            ["serve", "--home=\(home.path)", "--no-browser", "--no-restart", "--no-upgrade", "--no-default-folder", "--logflags=0"],
            serve: false, executable: SyncthingNode.executable)
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let status = try? http.json("GET", "/rest/system/status", timeout: 5) as? [String: Any], let id = status["myID"] as? String {
                deviceID = id
                break
            }
            guard Date() < deadline, process.isRunning else {
                throw BenchFailure.failed("syncthing \(name) did not start: \(process.standardError)\(process.standardOutput.suffix(2_000))")
            }
            usleep(50_000)
        }
        let options = try http.json("GET", "/rest/config/options") as? [String: Any] ?? [:]
        let leaks = SyncthingConfig.leaks(inOptions: options)
        guard leaks.isEmpty else {
            stop()
            throw BenchFailure.failed("syncthing \(name): options not off after start: \(leaks.joined(separator: ", "))")
        }
    }

    /// `syncthing` on the PATH (`$SYNCTHING_BINARY` when set).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["SYNCTHING_BINARY"] { return URL(fileURLWithPath: path) }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("syncthing")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: "/usr/bin/syncthing")
    }

    /// The version line of `syncthing --version`, nil when it is not installed.
    static func version() -> String? {
        guard let result = try? GalleryProcess.run(["--version"], executable: executable, timeout: 20), result.ok else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var pid: Int32 { process.processID }

    /// Adds `other` as a device reachable at its 127.0.0.1 listen address.
    func add(device other: SyncthingNode) throws {
        try http.expectOK("POST", "/rest/config/devices", json: [
            "deviceID": other.deviceID, "name": other.name, "addresses": ["tcp://127.0.0.1:\(other.listenPort)"],
            "autoAcceptFolders": false,
        ])
    }

    /// Waits until this instance is connected to `other`.
    func waitConnected(to other: SyncthingNode, timeout: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let connections = try http.json("GET", "/rest/system/connections") as? [String: Any]
            let devices = connections?["connections"] as? [String: Any]
            if let device = devices?[other.deviceID] as? [String: Any], device["connected"] as? Bool == true { return }
            usleep(50_000)
        }
        throw BenchFailure.failed("syncthing \(name) did not connect to \(other.name)")
    }

    /// The newest event ID so far (events after it are what follows).
    func lastEventID() throws -> Int {
        let events = try http.json("GET", "/rest/events?since=0&limit=1&timeout=0") as? [[String: Any]] ?? []
        return events.last?["id"] as? Int ?? 0
    }

    /// Adds a folder (`sendreceive`, no file system watcher: scans happen when asked, as the
    /// benchmark times them) shared with `devices`; the folder's first scan starts at once.
    func addFolder(id: String, path: URL, sharedWith devices: [SyncthingNode]) throws {
        try http.expectOK("POST", "/rest/config/folders", json: [
            "id": id, "label": id, "path": path.path, "type": "sendreceive",
            "devices": ([self] + devices).map { ["deviceID": $0.deviceID] },
            "rescanIntervalS": 3_600, "fsWatcherEnabled": false,
        ])
    }

    /// Shares this instance's folder `id` with `devices` too (`PATCH /rest/config/folders/ID`).
    func share(folder id: String, with devices: [SyncthingNode]) throws {
        try http.expectOK("PATCH", "/rest/config/folders/\(id)", json: [
            "devices": ([self] + devices).map { ["deviceID": $0.deviceID] },
        ])
    }

    /// Waits, from event `since` on, for `folder` to go from `scanning` to `idle` with `files`
    /// files in the local database (`/rest/db/status`, read at each such event): then its first
    /// scan, or the scan asked, is over.
    func waitScanned(folder: String, since: Int, files: Int, timeout: TimeInterval = 1_200) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var since = since
        while Date() < deadline {
            // The default event mask: a mask asked for starts its own subscription, which would
            // miss what happened before the first request with it.
            let events = try http.json("GET", "/rest/events?since=\(since)&timeout=10", timeout: 30) as? [[String: Any]] ?? []
            for event in events {
                since = max(since, event["id"] as? Int ?? since)
                guard event["type"] as? String == "StateChanged", let data = event["data"] as? [String: Any], data["folder"] as? String == folder,
                      data["to"] as? String == "idle", data["from"] as? String == "scanning" else { continue }
                if try status(folder: folder)["localFiles"] as? Int == files { return }
            }
        }
        throw BenchFailure.failed("syncthing \(name): the scan of \(folder) did not end with \(files) files in \(Int(timeout)) s")
    }

    /// Asks for a scan of `folder`; Syncthing answers once the scan is over.
    func scan(folder: String) throws {
        try http.expectOK("POST", "/rest/db/scan?folder=\(folder)", timeout: 600)
    }

    /// The folder's `/rest/db/status`.
    func status(folder: String) throws -> [String: Any] {
        try http.json("GET", "/rest/db/status?folder=\(folder)") as? [String: Any] ?? [:]
    }

    /// Stops the process (SIGTERM, then SIGKILL).
    func stop() {
        process.stop(timeout: 20)
    }
}

/// Ephemeral ports for Syncthing's listen and API addresses, found by binding port 0 on
/// 127.0.0.1 and closing (the kernel does not hand the same port out again at once).
enum FreePort {
    static func next() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchFailure.failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchFailure.failed("bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }
}
