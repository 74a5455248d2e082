import type { Messages } from '../types';
import type en from '../en/console';

export default {
  notices: {
    OUTCOME_UNKNOWN_one: '{{formatted}} requête était en cours d’envoi au dernier arrêt de Paydesk\u00a0; son issue est inconnue. Recherchez-la par sa référence externe avant de l’envoyer à nouveau.',
    OUTCOME_UNKNOWN_other: '{{formatted}} requêtes étaient en cours d’envoi au dernier arrêt de Paydesk\u00a0; leur issue est inconnue. Recherchez-les par leur référence externe avant de les envoyer à nouveau.',
    OUTCOME_UNKNOWN_many: '{{formatted}} de requêtes étaient en cours d’envoi au dernier arrêt de Paydesk\u00a0; leur issue est inconnue. Recherchez-les par leur référence externe avant de les envoyer à nouveau.',
    SANDBOX_UNAVAILABLE: 'Le bac à sable local n’a pas démarré\u00a0; les autres profils fonctionnent toujours. La raison figure dans le journal.',
    SETTINGS_CORRUPT: 'Le fichier de paramètres n’a pas pu être lu. Paydesk a démarré avec les paramètres par défaut (vos clés secrètes sont dans le trousseau du système et n’ont pas été touchées).',
    SETTINGS_CORRUPT_KEPT: 'Le fichier de paramètres n’a pas pu être lu\u00a0; il a été mis de côté sous {{backupPath}}. Paydesk a démarré avec les paramètres par défaut (vos clés secrètes sont dans le trousseau du système et n’ont pas été touchées).',
  },
  verify: {
    done: 'Vérifiée auprès de l’opérateur.',
  },
  resolve: {
    exists: 'Le service a bien cette transaction\u00a0: elle a été envoyée une fois, rien à renvoyer.',
    missing: 'Le service n’a aucune transaction avec cette référence externe\u00a0: elle n’est jamais arrivée, vous pouvez donc l’envoyer à nouveau sans risque.',
  },
} as const satisfies Messages<typeof en>;
