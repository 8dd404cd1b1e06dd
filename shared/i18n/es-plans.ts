import type { enPlans } from './en-plans';

export const esPlans: Record<keyof typeof enPlans, string> = {
  'subscribe.plansTitle': 'Más con un plan',
  'subscribe.subtitle': 'Empieza con {days} días de prueba gratis. ¡No se necesita tarjeta de crédito!',
  'subscribe.free': 'Gratis: perfiles, matches y chat en directo, con {likes} likes cada 24 horas.',
  'subscribe.monthly': 'Mensual',
  'subscribe.yearly': 'Anual',
  'subscribe.billing': 'Periodo de facturación',
  'subscribe.perMonth': 'mes',
  'subscribe.perMonthAnnually': 'mes (pago anual)',
  'subscribe.billedYearly': '{amount} facturados al año',
  'subscribe.comingSoon': '¡PRÓXIMAMENTE!',
  'subscribe.plan.starter': 'Starter',
  'subscribe.plan.pro': 'Pro',
  'subscribe.plan.enterprise': 'Enterprise',
  'subscribe.starter.1': 'Mira a quién le gustas y haz match con un toque',
  'subscribe.starter.2': 'Deshaz un «no» o un salto en los 5 minutos siguientes',
  'subscribe.starter.3': 'Likes ilimitados (gratis: {likes} cada 24 horas)',
  'subscribe.pro.1': 'Todo lo de Starter',
  'subscribe.pro.2': 'Más ventajas para eventos concurridos',
  'subscribe.enterprise.1': 'Todo lo de Pro',
  'subscribe.enterprise.2': 'Para quien organiza fiestas y eventos',
};
