/**
 * Renderer component tests: the screens are React.lazy chunks in the app (issue 17 item 6). Here
 * their modules are imported once before each test file, so a lazy screen resolves within the
 * render that asks for it instead of waiting for a first transform of recharts on a busy machine.
 * jsdom has no scrolling: the shell's "open at the top" is a no-op here (the E2E tests check it).
 */
import '../../renderer/src/screens/OverviewScreen';
import '../../renderer/src/screens/OverviewCharts';
import '../../renderer/src/screens/PaymentScreen';
import '../../renderer/src/screens/PayoutScreen';
import '../../renderer/src/screens/LookupScreen';
import '../../renderer/src/screens/TimelineScreen';
import '../../renderer/src/screens/HistoryScreen';
import '../../renderer/src/screens/BatchScreen';
import '../../renderer/src/screens/ReconcileScreen';
import '../../renderer/src/screens/SettingsScreen';
import '../../renderer/src/screens/SandboxScreen';

if (typeof window !== 'undefined') window.scrollTo = () => undefined;
