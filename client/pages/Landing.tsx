import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { FREE_TRIAL_DAYS } from '../../shared/constants';
import { ChatIcon, CloseIcon, HeartIcon, MenuIcon, SkipIcon, SparkIcon } from '../components/Icons';
import { LanguageSwitcher } from '../components/LanguageSwitcher';
import { useT } from '../lib/i18n';
import { lessMotion } from '../lib/motion';

// Below the fold, with its copy: not part of the landing page's first chunk.
const PricingSection = lazy(() => import('../components/PlanCards'));

const SECTIONS = [
  { id: 'features', key: 'nav.features' },
  { id: 'how-it-works', key: 'nav.howItWorks' },
  { id: 'download', key: 'nav.download' },
] as const;

const FEATURES = [
  { icon: SparkIcon, n: 1 },
  { icon: SkipIcon, n: 2 },
  { icon: HeartIcon, n: 3 },
  { icon: ChatIcon, n: 4 },
] as const;

function scrollToSection(id: string) {
  document.getElementById(id)?.scrollIntoView({ behavior: lessMotion() ? 'auto' : 'smooth' });
}

export function Landing() {
  const t = useT();
  const [menuOpen, setMenuOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const closer = useRef<HTMLButtonElement>(null);

  // Open, the menu is modal: the focus goes into it (the page behind is inert), and back to the button after.
  useEffect(() => {
    if (!menuOpen) return;
    closer.current?.focus();
    const close = (event: KeyboardEvent) => event.key === 'Escape' && setMenuOpen(false);
    window.addEventListener('keydown', close);
    return () => {
      window.removeEventListener('keydown', close);
      opener.current?.focus();
    };
  }, [menuOpen]);

  const go = (id: string) => (event: React.MouseEvent) => {
    event.preventDefault();
    setMenuOpen(false);
    scrollToSection(id);
  };

  return (
    <div className="landing">
      <header className="site-header" inert={menuOpen}>
        <a href="#top" className="logo" onClick={go('top')}>
          <HeartIcon className="logo-mark" /> {t('brand.name')}
        </a>
        <nav className="site-nav" aria-label={t('nav.main')}>
          {SECTIONS.map((section) => (
            <a key={section.id} href={`#${section.id}`} onClick={go(section.id)}>
              {t(section.key)}
            </a>
          ))}
        </nav>
        <div className="header-actions">
          <LanguageSwitcher className="desktop-only" />
          <Link href="/login/" className="btn btn-small btn-ghost desktop-only">
            {t('nav.login')}
          </Link>
          <button
            ref={opener}
            type="button"
            className="icon-btn mobile-only"
            aria-label={t('nav.openMenu')}
            aria-expanded={menuOpen}
            aria-controls="side-menu"
            onClick={() => setMenuOpen(true)}
          >
            <MenuIcon />
          </button>
        </div>
      </header>

      <div className={`side-menu-backdrop ${menuOpen ? 'is-open' : ''}`} onClick={() => setMenuOpen(false)} aria-hidden="true" />
      <aside id="side-menu" className={`side-menu ${menuOpen ? 'is-open' : ''}`} aria-hidden={!menuOpen} inert={!menuOpen}>
        <button ref={closer} type="button" className="icon-btn side-menu-close" aria-label={t('nav.closeMenu')} onClick={() => setMenuOpen(false)}>
          <CloseIcon />
        </button>
        <nav aria-label={t('nav.main')}>
          {SECTIONS.map((section) => (
            <a key={section.id} href={`#${section.id}`} onClick={go(section.id)}>
              {t(section.key)}
            </a>
          ))}
          <Link href="/login/">{t('nav.login')}</Link>
        </nav>
        <LanguageSwitcher />
      </aside>

      <main id="top" inert={menuOpen}>
        <section className="hero">
          <div className="hero-glow" aria-hidden="true" />
          <p className="eyebrow">{t('landing.hero.eyebrow')}</p>
          <h1>{t('landing.hero.title')}</h1>
          <p className="hero-text">{t('landing.hero.subtitle')}</p>
          <div className="hero-actions">
            <Link href="/login/" className="btn btn-primary">
              {t('landing.getStarted')}
            </Link>
            <a href="#features" className="btn btn-ghost" onClick={go('features')}>
              {t('landing.learnMore')}
            </a>
          </div>
          <div className="hero-cards" aria-hidden="true">
            <div className="hero-card hero-card-back" />
            <div className="hero-card hero-card-front">
              <span className="hero-card-stamp">{t('landing.stamp')}</span>
            </div>
          </div>
        </section>

        <section id="features" className="section">
          <h2>{t('landing.features.title')}</h2>
          <ul className="feature-grid">
            {FEATURES.map(({ icon: Icon, n }) => (
              <li key={n} className="feature">
                <Icon className="feature-icon" />
                <h3>{t(`landing.features.${n}.title`)}</h3>
                <p>{t(`landing.features.${n}.text`)}</p>
              </li>
            ))}
          </ul>
        </section>

        <section id="how-it-works" className="section section-alt">
          <h2>{t('landing.how.title')}</h2>
          <ol className="steps">
            {([1, 2, 3] as const).map((n) => (
              <li key={n} className="step">
                <span className="step-number" aria-hidden="true">{n}</span>
                <div>
                  <h3>{t(`landing.how.${n}.title`)}</h3>
                  <p>{t(`landing.how.${n}.text`)}</p>
                </div>
              </li>
            ))}
          </ol>
        </section>

        <Suspense fallback={null}>
          <PricingSection />
        </Suspense>

        <section id="download" className="section download">
          <h2>{t('landing.download.title')}</h2>
          <p>{t('landing.download.text', { days: FREE_TRIAL_DAYS })}</p>
          <a href="/login/" className="btn btn-primary">
            {t('landing.download.button')}
          </a>
        </section>
      </main>

      <footer className="site-footer" inert={menuOpen}>
        <p>{t('landing.footer.copyright', { year: new Date().getFullYear() })}</p>
        <nav aria-label={t('landing.footer.privacy')}>
          <a href="#">{t('landing.footer.terms')}</a>
          <Link href="/privacy">{t('landing.footer.privacy')}</Link>
        </nav>
      </footer>
    </div>
  );
}
