import Foundation
import GalleryTestSupport
import Testing

/// Invite and Members on a real node's page in headless Chromium, with real mouse, keyboard and
/// touch input: the sidebar's Invite shows a code as text and as a QR code the page draws (qr.js),
/// which an independent reader (`zbarimg`) decodes back to the code; a second node joins with it;
/// Members lists both, and Revoke (after a confirmation naming the member) revokes the second node,
/// as `gallery members --json` confirms. At 1440 px and at 390 px (the phone's drawer).
@Suite("Invite and Members on a real node's page", .serialized, .enabled(if: QRReader.testsEnabled, "needs Chromium and zbarimg (see .ci/run)"))
struct RealMembersTests {
    /// `members --json` of `node`.
    static func members(_ node: RealNode) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(try node.gallery("members", "--json").stdout.utf8))
        return object as? [[String: Any]] ?? (object as? [String: Any])?["members"] as? [[String: Any]] ?? []
    }

    /// The texts zbarimg reads in a screenshot of the QR code `selector` (kept as NAME.png), after
    /// checking that the screenshot is crisp (only pure black and white pixels, each module a uniform
    /// square of a whole number of pixels on the pixel grid) and keeps its 4-module quiet zone white.
    static func decode(_ page: BrowserPage, _ selector: String, as name: String) throws -> [String] {
        let geometry = try #require(try page.evaluate("""
            (() => { const s = document.querySelector(\(BrowserPage.jsString(selector)));
              return [Number(s.getAttribute('width')) / s.viewBox.baseVal.width, s.viewBox.baseVal.width]; })()
            """) as? [Double])
        let (module, side) = (geometry[0], geometry[1])
        #expect(module == module.rounded() && module >= 2, "a whole number of CSS pixels per module: \(module)")
        let png = try page.capture(selector)
        let census = try page.pixelCensus(png, module: Int(module))
        #expect(census.count == 5 && census[0] == Int(side * module) && census[1] == census[0], "\(name): size \(census)")
        #expect(census.count == 5 && census[2] == 0, "\(name): crisp, only black and white pixels: \(census)")
        #expect(census.count == 5 && census[3] == 0, "\(name): the quiet zone is white: \(census)")
        #expect(census.count == 5 && census[4] == 0, "\(name): each module a uniform square on the pixel grid: \(census)")
        return try QRReader.decode(png, savedAs: RealTrashTests.shots.appendingPathComponent("\(name).png"))
    }

    /// The texts on `page` (the open dialogs included) under 4.5:1 contrast against what is behind them.
    static func contrastFailures(_ page: BrowserPage) throws -> [String] {
        #expect(try page.evaluate(ContrastProbe.install) as? Bool == true)
        let text = try #require(try page.evaluate("__contrast.textFailures(4.5)") as? [String: Any])
        #expect((text["checked"] as? Int ?? 0) > 5)
        return text["failures"] as? [String] ?? ["no answer"]
    }

    @Test("Invite at 1440 px: the code as text, Copy, expiry, the newcomer's command, and a QR code zbarimg decodes to the code")
    func inviteShowsTheCodeAsTextAndQR() throws {
        try RealSpace.run("real-invite") { space in
            let alice = try space.node("alice")
            let page = try space.open(alice, newWindow: false)
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)

            try page.click("#invite-open")
            try page.waitFor("document.getElementById('invite')?.open && !!document.getElementById('invite-qr')")
            let code = try #require(try page.evaluateString("document.getElementById('invite-code').textContent"))
            #expect(code.hasPrefix("gsj1-") && code.count > 60, "\(code)")
            #expect(try page.evaluate("__state.requests.some(r => r.method === 'POST' && r.path === '/api/invite')") as? Bool == true)
            #expect(try page.evaluateString("document.getElementById('invite-command').textContent")
                    == "gallery serve DIR --name NAME --join \(code)")
            let expiry = try page.evaluateString("document.getElementById('invite-expiry').textContent") ?? ""
            #expect(expiry.contains("works once") && expiry.contains("(10 minutes)"), "\(expiry)")
            // A modal dialog named by its heading, focus inside it.
            #expect(try page.evaluate("""
                (() => { const d = document.getElementById('invite'); return d.matches(':modal') && d.contains(document.activeElement)
                  && document.getElementById(d.getAttribute('aria-labelledby')).textContent === 'Invite a node'; })()
                """) as? Bool == true)

            let symbol = try page.evaluateString("(() => { const s = document.getElementById('invite-qr'); "
                                                 + "return `${s.dataset.version}-${s.dataset.level} mask ${s.dataset.mask}`; })()") ?? ""
            print("invite: \(code.utf8.count)-byte code drawn as version \(symbol)")
            #expect(symbol.contains("-M "), "level M for a code this long: \(symbol)")
            #expect(try Self.decode(page, "#invite-qr", as: "invite-qr-desktop") == [code])
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("invite-desktop.png"))

            // Copy, with a real click: the page reports it.
            try page.click("#invite-code-copy")
            try page.waitFor("__state.members.copied === \(BrowserPage.jsString(code)) && document.querySelector('#invite .copy-status').textContent === 'Copied.'")

            // Escape closes it and gives the focus back to Invite…; Enter there makes a new code.
            try page.press(.escape)
            try page.waitFor("!document.getElementById('invite') && document.activeElement.id === 'invite-open'")
            try page.press(.enter)
            try page.waitFor("document.getElementById('invite')?.open && !!document.getElementById('invite-qr')")
            let second = try page.evaluateString("document.getElementById('invite-code').textContent")
            #expect(second != code && second?.hasPrefix("gsj1-") == true)
            #expect(try Self.decode(page, "#invite-qr", as: "invite-qr-second") == [second ?? ""])
        }
    }

    @Test("qr.js against published vectors (ISO 18004 and Thonky 1-M codewords, format and version bits), and every mask and version 1-10 decodes")
    func encoderVectorsAndEveryMask() throws {
        try RealSpace.run("real-qr-encoder") { space in
            let alice = try space.node("alice")
            let page = try space.open(alice, newWindow: false)
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)
            // Reed-Solomon: the 10 EC codewords of version 1-M "HELLO WORLD" (thonky.com's tutorial) and
            // "01234567" (ISO/IEC 18004 annex I).
            #expect(try page.evaluateString("QR.reedSolomon([32,91,11,120,209,114,220,77,67,64,236,17,236,17,236,17], 10).join()")
                    == "196,35,39,119,235,215,231,226,93,23")
            #expect(try page.evaluateString("QR.reedSolomon([16,32,12,86,97,128,236,17,236,17,236,17,236,17,236,17], 10).join()")
                    == "165,36,212,193,237,54,199,135,44,85")
            // Format bits (the standard's table): M with masks 0-7, L with mask 0; version bits of 7 and 10.
            #expect(try page.evaluateString("[0,1,2,3,4,5,6,7].map(m => QR.formatBits('M', m).toString(2).padStart(15, '0')).join()")
                    == "101010000010010,101000100100101,101111001111100,101101101001011,100010111111001,100000011001110,100111110010111,100101010100000")
            #expect(try page.evaluateString("QR.formatBits('L', 0).toString(2)") == "111011111000100")
            #expect(try page.evaluateString("QR.versionBits(7).toString(16) + ' ' + QR.versionBits(10).toString(16)") == "7c94 a4d3")
            // Data capacity of versions 1, 5, 7 and 10 at M (the standard's table: 16, 86, 124, 216 codewords).
            #expect(try page.evaluateString("[1, 5, 7, 10].map(v => QR.dataCodewords(v, 'M')).join()") == "16,86,124,216")

            // Drawn by the page, decoded by zbarimg: a 120-byte code with each of the 8 masks, then texts
            // from 1 to 260 bytes (versions 1 to 10, M, and L past M's 213 bytes), UTF-8 included.
            let code = "gsj1-" + String(repeating: "Ab0-_9zQ", count: 15).prefix(115)
            var cases: [(text: String, mask: Int?)] = (0..<8).map { (code, $0) }
            let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            for length in [1, 17, 60, 100, 150, 213, 260] {
                cases.append((String((0..<length).map { alphabet[$0 * 7 % alphabet.count] }), nil))
            }
            cases.append(("Grüße aus Zürich: 画廊 🌍", nil))
            var versions: Set<String> = []
            for (index, test) in cases.enumerated() {
                let drawn = try page.evaluateString("""
                    (() => { document.getElementById('qr-probe')?.remove();
                      const q = QR.encode(\(BrowserPage.jsString(test.text))\(test.mask.map { ", {mask: \($0)}" } ?? ""));
                      const s = QR.svg(q, 4); s.id = 'qr-probe';
                      Object.assign(s.style, { position: 'fixed', left: '0', top: '0', zIndex: '99' });
                      document.body.appendChild(s); return `${q.version}-${q.level} mask ${q.mask}`; })()
                    """) ?? ""
                versions.insert(String(drawn.prefix { $0 != " " }))
                if let mask = test.mask { #expect(drawn.hasSuffix("mask \(mask)")) }
                do {
                    let decoded = try Self.decode(page, "#qr-probe", as: "qr-probe-\(index)")
                    #expect(decoded == [test.text], "case \(index) (\(drawn)): \(test.text.utf8.count) bytes")
                } catch {
                    Issue.record("case \(index) (\(drawn)), \(test.text.utf8.count) bytes: \(error.localizedDescription)")
                }
            }
            #expect(versions.isSuperset(of: ["1-M", "3-M", "7-M", "10-M", "10-L"]), "\(versions.sorted())")
        }
    }

    @Test("Members: a node joins with the page's code; Revoke asks, naming it, then revokes it on the node")
    func membersAndRevokeAcrossTwoNodes() throws {
        try RealSpace.run("real-members") { space in
            let alice = try space.node("alice")
            let page = try space.open(alice, newWindow: false)
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)
            try page.click("#invite-open")
            try page.waitFor("document.getElementById('invite')?.open && !!document.getElementById('invite-qr')")
            let code = try #require(try page.evaluateString("document.getElementById('invite-code').textContent"))
            try page.click("#invite-close")
            try page.waitFor("!document.getElementById('invite')")

            // bob joins with the code the page showed: no secret file, no --peer.
            let bob = try RealNode("bob", base: space.base, arguments: ["--join", code])
            defer { bob.stop() }
            #expect(try alice.waitUntil { try Self.members($0).contains { $0["name"] as? String == "bob" } })
            let bobID = try #require(try Self.members(alice).first { $0["name"] as? String == "bob" }?["nodeID"] as? String)
            let aliceID = try #require(try Self.members(alice).first { $0["name"] as? String == "alice" }?["nodeID"] as? String)
            let bobRow = ".member[data-node=\"\(bobID)\"]"

            try page.click("#members-open")
            try page.waitFor("document.getElementById('members')?.open && document.querySelectorAll('#members-list .member').length === 2")
            #expect(try page.evaluateString("document.querySelector('\(bobRow) .member-id').textContent") == bobID)
            let added = try page.evaluateString("document.querySelector('\(bobRow) .member-added').textContent") ?? ""
            #expect(added.hasPrefix("Added ") && added.contains("by alice"), "\(added)")
            // "Added by" names the member; the raw node ID is only a smaller detail after the name.
            #expect(try page.evaluateString("document.querySelector('\(bobRow) .member-added .member-by').textContent") == "alice")
            #expect(try page.evaluateString("document.querySelector('\(bobRow) .member-added .member-by-id').textContent") == aliceID)
            #expect(!added.contains("[") && !added.contains("]"), "no bracketed raw ID: \(added)")
            let smaller = "(() => { const size = (s) => parseFloat(getComputedStyle(document.querySelector('\(bobRow) .member-added ' + s)).fontSize); "
                + "return size('.member-by-id') < size('.member-by'); })()"
            #expect(try page.evaluate(smaller) as? Bool == true, "the ID is smaller than the name")
            #expect(try page.evaluate("""
                (() => { const row = document.querySelector('.member[data-node="\(aliceID)"]');
                  return row.textContent.includes('this node') && !row.querySelector('.member-revoke'); })()
                """) as? Bool == true, "no Revoke for the node itself")
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("members-desktop.png"))

            // Revoke asks first, naming bob and saying it cannot be undone; Cancel changes nothing.
            try page.click("\(bobRow) .member-revoke")
            try page.waitFor("document.getElementById('confirm-revoke')?.open")
            let question = try page.evaluateString("document.getElementById('confirm-revoke').textContent") ?? ""
            #expect(question.contains("Revoke bob?") && question.contains(bobID) && question.contains("cannot be undone"), "\(question)")
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("members-confirm.png"))
            try page.click("#confirm-revoke button.secondary")
            try page.waitFor("!document.getElementById('confirm-revoke')")
            let kept = try #require(try Self.members(alice).first { $0["nodeID"] as? String == bobID })
            #expect(kept["revoked"] == nil || kept["revoked"] is NSNull, "Cancel revokes nothing: \(kept)")

            try page.click("\(bobRow) .member-revoke")
            try page.waitFor("document.getElementById('confirm-revoke')?.open")
            try page.click("#confirm-revoke-ok")
            try page.waitFor("!!document.querySelector('.member.revoked[data-node=\"\(bobID)\"]') && __state.toasts.includes('Revoked bob')", timeout: .seconds(15))
            #expect(try page.evaluateString("document.querySelector('\(bobRow) .member-revoked').textContent")?.hasPrefix("Revoked ") == true)
            #expect(try page.evaluate("!document.querySelector('\(bobRow) .member-revoke')") as? Bool == true)
            #expect(try page.evaluate("__state.requests.some(r => r.path === '/api/members/revoke' && r.body.node === \(BrowserPage.jsString(bobID)))") as? Bool == true)
            let revoked = try Self.members(alice).first { $0["nodeID"] as? String == bobID }
            #expect(revoked?["revoked"] is NSNumber, "members --json agrees: \(String(describing: revoked))")
            #expect(try Self.contrastFailures(page) == [], "text contrast in the Members dialog")
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("members-revoked.png"))
        }
    }

    @Test("At 390 px: Invite and Members from the drawer, nothing scrolls sideways, the dialogs fit, the QR code decodes")
    func phoneDrawer() throws {
        try RealSpace.run("real-members-phone") { space in
            let alice = try space.node("alice")
            let page = try space.open(alice, newWindow: false)
            try PageLooks.apply(PageLooks.phone, dark: true, to: page)
            let fits = """
                (() => { const d = document.querySelector('dialog[open]').getBoundingClientRect();
                  return document.scrollingElement.scrollWidth <= innerWidth && d.left >= 0 && d.right <= innerWidth
                    && d.top >= 0 && d.bottom <= innerHeight; })()
                """
            try page.tap("#drawer-open")
            try page.waitFor("__state.drawerOpen === true")
            try page.settle()
            try page.tap("#invite-open")
            try page.waitFor("document.getElementById('invite')?.open && !!document.getElementById('invite-qr')")
            #expect(try page.evaluate(fits) as? Bool == true, "the Invite dialog fits 390 px")
            try page.waitFor("!document.body.classList.contains('drawer-moving') && !__state.drawerOpen")
            let code = try #require(try page.evaluateString("document.getElementById('invite-code').textContent"))
            #expect(try Self.decode(page, "#invite-qr", as: "invite-qr-phone") == [code])
            #expect(try Self.contrastFailures(page) == [], "text contrast in the Invite dialog, dark")
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("invite-phone.png"))
            try page.tap("#invite-close")
            try page.waitFor("!document.getElementById('invite')")

            try page.tap("#drawer-open")
            try page.waitFor("__state.drawerOpen === true")
            try page.settle()
            try page.tap("#members-open")
            try page.waitFor("document.getElementById('members')?.open && document.querySelectorAll('#members-list .member').length === 1")
            #expect(try page.evaluate(fits) as? Bool == true, "the Members dialog fits 390 px")
            try page.waitFor("!document.body.classList.contains('drawer-moving')")
            #expect(try Self.contrastFailures(page) == [], "text contrast in the Members dialog, dark")
            try page.screenshot(to: RealTrashTests.shots.appendingPathComponent("members-phone.png"))
        }
    }
}
