/// Turns the config.xml that `syncthing generate` writes into one that never leaves the machine:
/// listening on 127.0.0.1 only, the REST API on 127.0.0.1 with our key, and global discovery,
/// local discovery, relays, NAT traversal (UPnP, NAT-PMP, STUN), usage and crash reporting,
/// upgrades and the browser all off. Syncthing also runs only inside a loopback-only network
/// namespace (`LoopbackNamespace`), so that a setting missed here still reaches nothing.
enum SyncthingConfig {
    /// The `<options>` elements set, and their values.
    static func options(listenPort: UInt16) -> [(element: String, value: String)] {
        [
            ("listenAddress", "tcp://127.0.0.1:\(listenPort)"),
            ("globalAnnounceEnabled", "false"),
            ("localAnnounceEnabled", "false"),
            ("relaysEnabled", "false"),
            ("natEnabled", "false"),
            ("stunKeepaliveStartS", "0"),
            ("stunKeepaliveMinS", "0"),
            ("urAccepted", "-1"),
            ("autoUpgradeIntervalH", "0"),
            ("crashReportingEnabled", "false"),
            ("startBrowser", "false"),
            ("announceLANAddresses", "false"),
            ("restartOnWakeup", "false"),
            // By default Syncthing lowers its own scheduling priority: on a machine that others
            // load, it would then get less CPU than our nodes. Both run at the same priority.
            ("setLowPriority", "false"),
        ]
    }

    /// The generated config with the options above, the GUI (the REST API) on
    /// `127.0.0.1:guiPort` with `apiKey`; throws when an element to change is missing (another
    /// Syncthing version), so that nothing runs with a setting left on.
    static func isolated(_ xml: String, guiPort: UInt16, apiKey: String, listenPort: UInt16) throws -> String {
        var text = xml
        for (element, value) in options(listenPort: listenPort) {
            guard let section = text.range(of: "<options>") else { throw BenchFailure.failed("syncthing: config.xml has no <options>") }
            text = try replacing(element, with: value, in: text, after: section.lowerBound)
        }
        for (element, value) in [("address", "127.0.0.1:\(guiPort)"), ("apikey", apiKey)] {
            guard let gui = text.range(of: "<gui ") else { throw BenchFailure.failed("syncthing: config.xml has no <gui>") }
            text = try replacing(element, with: value, in: text, after: gui.lowerBound)
        }
        return text
    }

    /// `text` with the content of the first `<element>...</element>` after `start` set to `value`.
    static func replacing(_ element: String, with value: String, in text: String, after start: String.Index) throws -> String {
        guard let open = text.range(of: "<\(element)>", range: start..<text.endIndex),
              let close = text.range(of: "</\(element)>", range: open.upperBound..<text.endIndex) else {
            throw BenchFailure.failed("syncthing: config.xml has no <\(element)> where expected")
        }
        return text.replacingCharacters(in: open.upperBound..<close.lowerBound, with: value)
    }

    /// The option values of `GET /rest/config/options` that must hold for the instance to stay
    /// on this machine; the names of those that do not.
    static func leaks(inOptions options: [String: Any]) -> [String] {
        var wrong: [String] = []
        let off = ["globalAnnounceEnabled", "localAnnounceEnabled", "relaysEnabled", "natEnabled", "crashReportingEnabled", "startBrowser"]
        for name in off where (options[name] as? Bool) != false { wrong.append(name) }
        if (options["urAccepted"] as? Int) != -1 { wrong.append("urAccepted") }
        if (options["autoUpgradeIntervalH"] as? Int) != 0 { wrong.append("autoUpgradeIntervalH") }
        let listen = options["listenAddresses"] as? [String] ?? []
        if listen.isEmpty || !listen.allSatisfy({ $0.hasPrefix("tcp://127.0.0.1:") }) { wrong.append("listenAddresses") }
        return wrong
    }
}
